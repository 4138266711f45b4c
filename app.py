"""The Chalice app: the blueprints and the event handlers, nothing else."""

from chalicelib import environment

# First, before an import could make an AWS client: on the local stage (`chalice local` reads
# only this file) every call goes to the local emulator, never to AWS, and without the
# emulator `chalice local` stops with one line rather than answer 500s.
environment.use_local_emulator_if_local()
environment.exit_unless_emulator_answers()

import json

from chalice import Rate

from chalicelib import config
from chalicelib.api import (
    alert_receiver,
    component_groups,
    components,
    embed,
    health,
    incident_templates,
    incidents,
    integrations,
    metrics_providers,
    openapi,
    organizations,
    page_access,
    pages,
    postmortems,
    subscribers,
    subscriptions,
)
from chalicelib.api import checks as checks_api
from chalicelib.api import metrics as metrics_api
from chalicelib.api import uptime as uptime_api
from chalicelib.console import access as console_access  # noqa: F401
from chalicelib.console import branding as console_branding
from chalicelib.console import checks as console_checks  # noqa: F401
from chalicelib.console import component_uptime as console_component_uptime  # noqa: F401
from chalicelib.console import components as console_components  # noqa: F401 (registers screens)
from chalicelib.console import incident_backfill as console_incident_backfill  # noqa: F401
from chalicelib.console import incident_edits as console_incident_edits  # noqa: F401
from chalicelib.console import incident_list as console_incident_list  # noqa: F401
from chalicelib.console import incident_templates as console_incident_templates  # noqa: F401
from chalicelib.console import incidents as console_incidents  # noqa: F401
from chalicelib.console import integrations as console_integrations  # noqa: F401
from chalicelib.console import markdown_preview as console_markdown  # noqa: F401
from chalicelib.console import metrics as console_metrics  # noqa: F401
from chalicelib.console import pages as console_pages  # noqa: F401
from chalicelib.console import password as console_password  # noqa: F401
from chalicelib.console import postmortems as console_postmortems  # noqa: F401
from chalicelib.console import script as console_script  # noqa: F401
from chalicelib.console import settings as console_settings  # noqa: F401
from chalicelib.console import sign_in as console_sign_in  # noqa: F401
from chalicelib.console import subscriber_adding as console_subscriber_adding  # noqa: F401
from chalicelib.console import subscriber_import as console_subscriber_import  # noqa: F401
from chalicelib.console import subscribers as console_subscribers  # noqa: F401
from chalicelib.console import team as console_team  # noqa: F401
from chalicelib.console import third_party as console_third_party  # noqa: F401
from chalicelib.console import views as console_views
from chalicelib.domain import metrics, unit_of_work
from chalicelib.domain import pages as page_rules
from chalicelib.domain import subscribers as subscriber_rules
from chalicelib.http import gateway, routing
from chalicelib.jobs import schedule
from chalicelib.notify import confirmation, deliver, fanout, outbox, queues, ses_events
from chalicelib.observability import logs as structured_logs
from chalicelib.public import incident_subscriptions as public_incident_subscriptions
from chalicelib.public import publish
from chalicelib.public import routes as public_routes
from chalicelib.public import sign_in as public_sign_in
from chalicelib.public import subscriber_api as public_subscriber_api
from chalicelib.public import subscriptions as public_subscriptions

# After every commit: hand its events to the queue, and ask for its page's files anew.
unit_of_work.after_commit(outbox.publish_committed, publish.request_committed)
# A page made private or audience-specific: its public files are withdrawn before the answer.
page_rules.after_update(publish.withdraw_if_hidden)
# A new subscriber's confirmation link: the rules say when, the notifiers send it.
subscriber_rules.send_confirmations_with(confirmation.send)

# On AWS one greedy resource answers every path: the app finds the route (http/gateway.py).
app = gateway.App(app_name="statuspage")
# JSON log lines, one per invocation with its outcome; first, so it is the outermost middleware.
structured_logs.observe(app)
# Bodies API Gateway must hand over as bytes (base64), not as text: forms that post files, and
# the images uploaded with them, which readers fetch.
app.api.binary_types.extend(
    kind for kind in console_branding.BINARY_TYPES if kind not in app.api.binary_types
)
for blueprint_module in (
    pages,
    organizations,
    embed,
    components,
    component_groups,
    incidents,
    postmortems,
    incident_templates,
    subscribers,
    subscriptions,
    metrics_providers,
    metrics_api,
    integrations,
    alert_receiver,
    page_access,
    openapi,
    health,
):
    app.register_blueprint(blueprint_module.blueprint)
app.register_blueprint(uptime_api.blueprint)
app.register_blueprint(checks_api.blueprint)
app.register_blueprint(public_routes.blueprint)
app.register_blueprint(public_subscriptions.blueprint)
app.register_blueprint(public_incident_subscriptions.blueprint)
app.register_blueprint(public_sign_in.blueprint)
app.register_blueprint(public_subscriber_api.blueprint)
app.register_blueprint(console_views.blueprint)  # the console's screens, all on one blueprint
app.register_middleware(routing.contract_answers, "http")
routing.answer_unrouted_with(console_views.BASE, console_views.no_such_screen)


@app.on_sqs_message(queue=config.queue_name(queues.NOTIFICATIONS), batch_size=10)
def fan_out_notifications(event):
    """An outbox event in, batches of recipients out to the deliveries queue."""
    for record in event:
        message = json.loads(record.body)
        fanout.fan_out(message["event_id"], message.get("page_id"))


@app.on_sqs_message(queue=config.queue_name(queues.DELIVERIES), batch_size=10)
def deliver_notifications(event):
    """Up to 10 batches of recipients, sent at once: email, SMS, webhooks."""
    deliver.deliver_all([json.loads(record.body) for record in event])


@app.on_sqs_message(queue=config.queue_name(queues.METRIC_DATA), batch_size=10)
def write_metric_data(event):
    """Batches of data points accepted by the API, written with batch writes; the charts of
    their pages are published anew (points change no snapshot, so only a forced publish shows
    them before the minute's)."""
    pages = []
    for record in event:
        message = json.loads(record.body)
        metrics.write_batch(message)
        pages.append(message["page_id"])
    for page_id in dict.fromkeys(pages):
        publish.request(page_id, force=True)


@app.on_sqs_message(queue=config.queue_name(queues.PUBLISH), batch_size=10)
def publish_pages(event):
    """Pages whose public files are due: each rendered and written to the site store once."""
    messages = [json.loads(record.body) for record in event]
    forced = [message["page_id"] for message in messages if message.get("force")]
    publish.publish_pages(forced, force=True)
    publish.publish_pages(message["page_id"] for message in messages if not message.get("force"))


@app.on_sns_message(topic=config.topic_name(ses_events.TOPIC))
def read_email_events(event):
    """SES's bounces and complaints: hard bounces and complaints stop the subscriber."""
    ses_events.handle(event.message)


@app.schedule(Rate(1, unit=Rate.MINUTES))
def every_minute(event):
    """Maintenance steps and reminders, the outbox sweep, the pages whose files are due."""
    schedule.tick()
