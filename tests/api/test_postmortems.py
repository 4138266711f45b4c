"""Postmortems through HTTP: SPEC 3.3's rows in both path styles."""

import pytest


@pytest.fixture
def incident_path(world):
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "x", "status": "resolved"}}
    )
    return f"/v1/pages/{world.page_id}/incidents/{answer.json['id']}"


@pytest.mark.parametrize("suffix", ["", ".json"])
def test_no_postmortem_is_404_everywhere(world, incident_path, suffix):
    assert world.api.get(incident_path + "/postmortem" + suffix).status == 404
    assert world.api.put(incident_path + "/postmortem/publish" + suffix, {}).status == 404
    assert world.api.put(incident_path + "/postmortem/revert" + suffix).status == 404
    assert world.api.delete(incident_path + "/postmortem" + suffix).status == 404


@pytest.mark.parametrize("form", [False, True])
def test_put_creates_a_draft_then_replaces_it(world, incident_path, form):
    first = world.api.put(
        incident_path + "/postmortem.json", {"postmortem": {"body_draft": "# Draft"}}, form=form
    )
    assert first.status == 200, first.text
    assert first.json["body_draft"] == "# Draft"
    assert first.json["published_at"] is None
    assert first.json["body"] is None
    second = world.api.put(
        incident_path + "/postmortem", {"postmortem": {"body_draft": "# Better"}}, form=form
    )
    assert second.json["body_draft"] == "# Better"
    assert second.json["preview_key"] == first.json["preview_key"]


def test_put_without_a_body_is_400(world, incident_path):
    assert world.api.put(incident_path + "/postmortem").status == 400


def test_publish_copies_the_draft_and_shows_on_the_incident(world, incident_path):
    world.api.put(incident_path + "/postmortem", {"postmortem": {"body_draft": "What happened"}})
    published = world.api.put(
        incident_path + "/postmortem/publish.json",
        {"postmortem": {"notify_subscribers": "t"}},
        form=True,
    )
    assert published.status == 200, published.text
    assert published.json["body"] == "What happened"
    assert published.json["published_at"] is not None
    incident = world.api.get(incident_path).json
    assert incident["status"] == "postmortem"
    assert incident["postmortem_body"] == "What happened"
    assert incident["postmortem_published_at"] == published.json["published_at"]
    assert incident["postmortem_notified_subscribers"] is True


def test_the_archived_portmortem_spelling_is_accepted(world, incident_path):
    world.api.put(incident_path + "/postmortem", {"postmortem": {"body_draft": "x"}})
    answer = world.api.put(
        incident_path + "/postmortem/publish.json", {"portmortem": {"notify_subscribers": True}}
    )
    assert answer.status == 200
    assert answer.json["notify_subscribers"] is True


def test_notify_social_without_a_social_account_is_400(world, incident_path):
    world.api.put(incident_path + "/postmortem", {"postmortem": {"body_draft": "x"}})
    answer = world.api.put(
        incident_path + "/postmortem/publish", {"postmortem": {"notify_social": True}}
    )
    assert answer.status == 400
    assert answer.json == {"error": "Bad request"}


def test_revert_moves_the_published_body_back_to_draft(world, incident_path):
    world.api.put(incident_path + "/postmortem", {"postmortem": {"body_draft": "v1"}})
    world.api.put(incident_path + "/postmortem/publish", {})
    world.api.put(incident_path + "/postmortem", {"postmortem": {"body_draft": "v2 draft"}})
    reverted = world.api.put(incident_path + "/postmortem/revert.json")
    assert reverted.status == 200, reverted.text
    assert reverted.json["body_draft"] == "v1"
    assert reverted.json["published_at"] is None
    assert world.api.get(incident_path).json["status"] == "resolved"
    assert world.api.put(incident_path + "/postmortem/revert").status == 404


def test_only_the_first_publication_notifies(world, incident_path):
    from chalicelib.store.outbox import OutboxEvent

    incident_id = incident_path.rsplit("/", 1)[-1]
    world.api.put(incident_path + "/postmortem", {"postmortem": {"body_draft": "v1"}})
    for _ in range(2):
        world.api.put(
            incident_path + "/postmortem/publish", {"postmortem": {"notify_subscribers": True}}
        )
        world.api.put(incident_path + "/postmortem/revert")
    events = [
        e
        for e in OutboxEvent.scan()
        if e.kind == "postmortem_published" and e.payload["incident_id"] == incident_id
    ]
    assert len(events) == 1


def test_delete_removes_the_postmortem(world, incident_path):
    world.api.put(incident_path + "/postmortem", {"postmortem": {"body_draft": "x"}})
    assert world.api.delete(incident_path + "/postmortem.json").status == 204
    assert world.api.get(incident_path + "/postmortem").status == 404


@pytest.mark.parametrize(
    "harmful",
    [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        "[click](javascript:alert(1))",
        '<a href="JavaScript:alert(1)">x</a>',
    ],
)
def test_harmful_markup_is_removed_when_saved(world, incident_path, harmful):
    answer = world.api.put(
        incident_path + "/postmortem",
        {"postmortem": {"body_draft": f"## Cause\n\n{harmful}\n\n*kept*"}},
    )
    draft = answer.json["body_draft"]
    assert "<script" not in draft.lower()
    assert "onerror" not in draft.lower()
    assert "javascript:" not in draft.lower()
    assert "## Cause" in draft and "*kept*" in draft
    published = world.api.put(incident_path + "/postmortem/publish", {}).json
    assert "javascript:" not in published["body"].lower()
