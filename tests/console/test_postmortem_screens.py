"""Postmortems in the console: preview without saving, save, publish, revert."""

from tests.public.conftest import make_incident


def test_a_postmortem_is_previewed_saved_published_and_reverted(console, make_user, world):
    incident = make_incident(world, "Checkout errors", status="resolved")
    path = f"/manage/pages/{world.page_id}/incidents/{incident['id']}/postmortem"
    api_path = f"/v1/pages/{world.page_id}/incidents/{incident['id']}"
    console.sign_in(make_user())
    console.get(path)
    text = "## What happened\n\nA *bad* deploy. <script>alert(1)</script>"
    preview = console.post(path, {"body_draft": text, "action": "preview"})
    assert preview.status == 200
    assert "<em>bad</em>" in preview.text and "<script>alert(1)" not in preview.text
    assert world.api.get(api_path).json["postmortem_body"] is None  # a preview saves nothing

    assert console.post(path, {"body_draft": text, "action": "save"}).status == 303
    console.get(path)
    assert (
        console.post(path + "/publish", {"postmortem[notify_subscribers]": "false"}).status == 303
    )
    published = world.api.get(api_path).json
    assert "A *bad* deploy." in published["postmortem_body"]
    assert "<script>" not in published["postmortem_body"]
    assert published["postmortem_published_at"] is not None

    console.get(path)
    assert console.post(path + "/revert", {}).status == 303
    assert world.api.get(api_path).json["postmortem_published_at"] is None


def test_a_maintenance_manager_may_not_write_a_postmortem(console, make_user, world):
    incident = make_incident(world, "Checkout errors", status="resolved")
    console.sign_in(make_user({"maintenance_manager": True}))
    path = f"/manage/pages/{world.page_id}/incidents/{incident['id']}/postmortem"
    assert console.get(path).status == 403


def test_publishing_publishes_the_text_in_the_form_not_an_older_saved_draft(
    console, make_user, world
):
    incident = make_incident(world, "Checkout errors", status="resolved")
    path = f"/manage/pages/{world.page_id}/incidents/{incident['id']}/postmortem"
    api_path = f"/v1/pages/{world.page_id}/incidents/{incident['id']}"
    console.sign_in(make_user())
    console.get(path)
    assert console.post(path, {"body_draft": "The first guess.", "action": "save"}).status == 303
    shown = console.get(path).text
    assert f'formaction="{path}/publish"' in shown  # the write form's own Publish button
    edited = {"body_draft": "The *real* cause.", "postmortem[notify_subscribers]": "false"}
    assert console.post(path + "/publish", edited).status == 303
    published = world.api.get(api_path).json
    assert published["postmortem_body"] == "The *real* cause."
    assert published["postmortem_published_at"] is not None
    assert "The first guess." not in console.get(path).text  # the draft is the edit too
