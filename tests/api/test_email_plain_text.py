"""The plain-text part of an email says what its HTML part shows (issue 32, item 12): the
update's Markdown rendered to text, links kept as `text (url)`."""

from tests.sent_mail import sent_mail

BODY = (
    "**18:10 UTC** The database failed over; see [the runbook](https://runbook.example/db).\n"
    "\n"
    "- reads: _recovered_\n"
    "- writes: `queued`\n"
    "\n"
    "> Next update by 19:00 UTC."
)


def subscribe_by_email(world, address):
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/subscribers",
        {"subscriber": {"email": address, "skip_confirmation_notification": True}},
    )
    assert answer.status == 201, answer.text


def test_an_update_s_markdown_reads_as_text_in_the_plain_part(world, drain):
    address = f"text-{world.page_id}@example.com"
    subscribe_by_email(world, address)
    before = len(sent_mail())
    world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {"incident": {"name": "Database failover", "body": BODY}},
    )
    drain()
    (mail,) = [m for m in sent_mail()[before:] if m.to == [address]]
    text = mail.body
    assert "18:10 UTC The database failed over" in text
    assert "the runbook (https://runbook.example/db)" in text
    assert "- reads: recovered\n- writes: queued" in text
    assert "> Next update by 19:00 UTC." in text
    for markup in ("**", "](", "_recovered_", "`"):
        assert markup not in text
    assert "<strong>18:10 UTC</strong>" in mail.html  # the HTML part renders it as before


def test_a_postmortem_s_markdown_reads_as_text(world, drain):
    address = f"pm-{world.page_id}@example.com"
    subscribe_by_email(world, address)
    incident = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {"incident": {"name": "Outage", "status": "resolved"}},
    ).json
    drain()
    before = len(sent_mail())
    path = f"/v1/pages/{world.page_id}/incidents/{incident['id']}/postmortem"
    world.api.put(path, {"postmortem": {"body_draft": "## Root cause\n\nA **full** disk."}})
    world.api.put(path + "/publish", {"postmortem": {"notify_subscribers": True}})
    drain()
    (mail,) = [m for m in sent_mail()[before:] if m.to == [address]]
    assert "Root cause\n\nA full disk." in mail.body
    assert "##" not in mail.body and "**" not in mail.body


def test_an_update_s_markdown_reads_as_text_in_a_text_message(world, drain):
    from moto.backends import get_backend

    world.api.post(
        f"/v1/pages/{world.page_id}/subscribers",
        {"subscriber": {"phone_country": "US", "phone_number": "4155550142"}},
    )
    world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {"incident": {"name": "Text failover", "body": "**18:10 UTC** Failed over."}},
    )
    drain()
    texts = get_backend("sns")["123456789012"]["us-east-1"].sms_messages
    (text,) = [t for number, t in texts.values() if "Text failover" in t]
    assert "18:10 UTC Failed over." in text and "**" not in text
