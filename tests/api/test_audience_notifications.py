"""Notifications of an audience-specific page name no components: one message goes to
readers who are each granted some of them, so none learns of the others from it."""

from tests.public.conftest import make_component, update_page
from tests.sent_mail import sent_mail
from tests.webhook_sink import WebhookSink


def test_a_subscriber_of_an_audience_page_does_not_learn_of_hidden_components(world, drain):
    drain()
    visible, hidden = make_component(world, "Checkout"), make_component(world, "Secret billing")
    user = world.api.post(
        f"/v1/pages/{world.page_id}/page_access_users",
        {"page_access_user": {"email": "alice@example.com", "component_ids": [visible["id"]]}},
    ).json
    update_page(world, audience_specific=True, allow_webhook_subscribers=True)
    base = f"/v1/pages/{world.page_id}/subscribers"
    with WebhookSink() as sink:
        for fields in (
            {"email": "alice@example.com", "skip_confirmation_notification": True},
            {"endpoint": sink.url, "email": "hooks@example.com"},
        ):
            body = {"subscriber": {**fields, "page_access_user": user["id"]}}
            made = world.api.post(base, body)
            assert made.status == 201, made.text
        before = len(sent_mail())
        incident = {
            "name": "Payments slow",
            "body": "Looking into it",
            "components": {visible["id"]: "major_outage", hidden["id"]: "major_outage"},
            "component_ids": [visible["id"], hidden["id"]],
        }
        created = world.api.post(f"/v1/pages/{world.page_id}/incidents", {"incident": incident})
        assert created.status == 201, created.text
        drain()
    (mail,) = [m for m in sent_mail()[before:] if "alice@example.com" in m.to]
    assert "Payments slow" in mail.body
    assert "Secret billing" not in mail.body and "Secret billing" not in mail.html
    assert all(b"Secret billing" not in post["raw"] for post in sink.received)
    (announced,) = [post["json"] for post in sink.received if "incident" in post["json"]]
    assert announced["incident"]["name"] == "Payments slow"
    assert announced["incident"]["components"] == []
    changed = [
        post["json"]["component"]["id"] for post in sink.received if "component" in post["json"]
    ]
    assert changed == [visible["id"]]  # its own component's change, not the hidden one's
