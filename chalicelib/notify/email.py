"""Email through SES: single messages, and one notification to many through a template.

A notification is the same for all its recipients but for the unsubscribe link, so it goes
as SES bulk templated email: one call per 50 recipients, the text in the default template
data and each recipient's link in its replacement data. The template is a deployment
resource (`infra/`; the local stack creates it at start).
"""

import json
from functools import lru_cache

import boto3

from chalicelib import config

# SES takes at most 50 destinations in one SendBulkTemplatedEmail.
DESTINATIONS_PER_CALL = 50
# Triple braces: Handlebars would HTML-escape the plain text otherwise.
NOTIFICATION_TEMPLATE = {
    "SubjectPart": "{{{subject}}}",
    "TextPart": "{{{text}}}\nUnsubscribe: {{{unsubscribe}}}\n",
}


def notification_template_name() -> str:
    return f"statuspage-{config.stage()}-notification"


@lru_cache(maxsize=1)
def _client():
    return boto3.client("ses", region_name=config.region())


def send_email(to: str, subject: str, text: str, sender: str | None = None) -> None:
    _client().send_email(
        Source=sender or config.notifications_sender(),
        Destination={"ToAddresses": [to]},
        Message={"Subject": {"Data": subject[:900]}, "Body": {"Text": {"Data": text}}},
    )


def create_notification_template() -> None:
    """The template, where no deployment made it (the local stack)."""
    template = {"TemplateName": notification_template_name(), **NOTIFICATION_TEMPLATE}
    try:
        _client().create_template(Template=template)
    except _client().exceptions.AlreadyExistsException:
        _client().update_template(Template=template)


def send_bulk(subject: str, text: str, recipients: list[tuple[str, str]]) -> list[bool]:
    """One message to up to 50 (address, unsubscribe link) pairs; whether SES took each."""
    answer = _client().send_bulk_templated_email(
        Source=config.notifications_sender(),
        Template=notification_template_name(),
        DefaultTemplateData=json.dumps({"subject": subject[:900], "text": text}),
        Destinations=[
            {
                "Destination": {"ToAddresses": [address]},
                "ReplacementTemplateData": json.dumps({"unsubscribe": unsubscribe}),
            }
            for address, unsubscribe in recipients
        ],
    )
    statuses = answer.get("Status", [])
    return [
        index < len(statuses) and statuses[index].get("Status", "Success") == "Success"
        for index in range(len(recipients))
    ]
