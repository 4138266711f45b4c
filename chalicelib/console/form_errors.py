"""A refused form's problems in words a page owner reads, each under the form's own field
(the API names fields and says "must be after scheduled_for"; a form says "The end must be
after the start" beside the end)."""

from __future__ import annotations

import re

# A message naming what it refuses by its id ("01m8... is not a component of this page"): the
# id means nothing to whoever typed the form, whose field the label already names.
_LEADING_ID = re.compile(r"^[0-9a-z]{16} (?=is |was |has )")

# What a form calls the API's fields.
FIELD_WORDS = {
    "component_ids": "One of the components",
    "title": "The title",
    "suffix": "The suffix",
    "url": "The address",
    "login": "The login",
    "password": "The password",
    "time_zone": "The time zone",
    "subdomain": "The subdomain",
    "domain": "The domain",
    "value": "The value",
    "timestamp": "The time",
    "name": "The name",
    "body": "The message",
    "status": "The status",
    "impact_override": "The impact",
    "scheduled_for": "The start",
    "scheduled_until": "The end",
    "backfill_date": "The date",
    "components": "The components",
    "description": "The description",
    "email": "The email address",
    "phone_number": "The phone number",
    "phone_country": "The country",
    "endpoint": "The webhook URL",
    "group_id": "The group",
    "start_date": "The start date",
    "day": "The day",
    "major_outage": "The minutes of major outage",
    "partial_outage": "The minutes of partial outage",
}
# The API's messages a page owner would not read as they are, in words.
MESSAGE_WORDS = {
    "must be after scheduled_for": "must be after the start",
    "is required for a scheduled incident": "is needed for a maintenance",
    "Field required": "is needed",
    "can't be blank": "cannot be empty",
    "String should have at least 1 character": "cannot be empty",
    "Input should be a valid datetime": "is not a date and time",
}


def words(problems: dict[str, list[str]]) -> dict[str, list[str]]:
    """Each field's problems as sentences ("The end must be after the start"), by the field's
    API name (its last part: `incident.scheduled_until` is `scheduled_until`)."""
    said: dict[str, list[str]] = {}
    for field, messages in problems.items():
        name = field.rsplit(".", 1)[-1]
        label = FIELD_WORDS.get(name, "This field")
        for message in messages:
            sentence = f"{label} {MESSAGE_WORDS.get(message, _plain(message))}"
            said.setdefault(name, []).append(sentence[0].upper() + sentence[1:])
    return said


def _plain(message: str) -> str:
    """A message with no words of its own, lower-cased to follow the field's label."""
    message = _LEADING_ID.sub("", message)
    return message[:1].lower() + message[1:]
