"""The importer on postmortems and subscribers (issue 32, items 1-4): one page of ours is the
source, read through the app's own API in process, and another organization's page is the
target, so each test shows what the import made of one thing."""

import io
import json
from urllib.parse import urlencode

import pytest

from chalicelib.importer import run
from chalicelib.importer.progress import Progress
from chalicelib.importer.source import Source, SourceMissing
from tests.api.conftest import Api, World
from tests.sent_mail import sent_mail


class ThroughApp(Source):
    """The importer's source client, answered by the app in this process."""

    def __init__(self, api: Api, refused: tuple[str, ...] = ()):
        super().__init__("http://source.invalid", "unused", rate=0)
        self.api, self.refused = api, refused

    def get(self, path: str, **query) -> object:
        self.requests += 1
        if path.endswith(self.refused):
            raise SourceMissing(f"{path}: the source does not serve this read (405)")
        answer = self.api.get("/v1" + path + (f"?{urlencode(query)}" if query else ""))
        if answer.status in (404, 405):
            raise SourceMissing(f"{path}: {answer.status}")
        assert answer.status == 200, (path, answer.text)
        return answer.json


@pytest.fixture
def pair(make_world, monkeypatch):
    """A source page and a target page of another organization."""
    source, target = make_world("Source"), make_world("Target")
    monkeypatch.setattr(run, "Source", lambda *args: ThroughApp(source.api))
    return source, target


def refusing(monkeypatch, source: World, *reads: str) -> None:
    """The source answers the reads whose path ends so as Statuspage's may: 405."""
    monkeypatch.setattr(run, "Source", lambda *args: ThroughApp(source.api, reads))


def import_page(source: World, target: World) -> tuple[dict, str]:
    """Import the source page into the target page: the summary and what was said on stderr."""
    said = io.StringIO()
    request = run.Request(
        from_url="http://source.invalid",
        from_key="unused",
        source_page_id=source.page_id,
        organization_id=target.organization_id,
        into=target.page_id,
        rate=0,
    )
    return run.run(request, Progress(said)), said.getvalue()


def make_incident(world: World, name: str) -> str:
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": name, "status": "resolved"}}
    )
    assert answer.status == 201, answer.text
    return answer.json["id"]


def twin(world: World, name: str) -> str:
    """The id of the incident called `name` on the world's page."""
    (found,) = [
        i for i in world.api.get(f"/v1/pages/{world.page_id}/incidents").json if i["name"] == name
    ]
    return found["id"]


def postmortem_path(world: World, incident_id: str) -> str:
    return f"/v1/pages/{world.page_id}/incidents/{incident_id}/postmortem"


def subscribe(world: World, email: str, incident_id: str | None = None) -> dict:
    under = f"/incidents/{incident_id}" if incident_id else ""
    answer = world.api.post(
        f"/v1/pages/{world.page_id}{under}/subscribers",
        {"subscriber": {"email": email, "skip_confirmation_notification": True}},
    )
    assert answer.status == 201, answer.text
    return answer.json


def subscribers(world: World, **query) -> dict[str, dict]:
    """The page's subscribers by email: those listed (`state=all`) and the unsubscribed."""
    path = f"/v1/pages/{world.page_id}/subscribers"
    listed = world.api.get(f"{path}?{urlencode({'state': 'all', **query})}").json
    left = world.api.get(f"{path}/unsubscribed").json
    return {s["email"]: s for s in listed + left}


def unsubscribe(world: World, subscriber_id: str) -> None:
    answer = world.api.delete(f"/v1/pages/{world.page_id}/subscribers/{subscriber_id}")
    assert answer.status == 200, answer.text


# Item 1: a published postmortem


def test_an_imported_published_postmortem_reads_and_edits_as_one_written_here(pair):
    source, target = pair
    incident_id = make_incident(source, "Outage")
    path = postmortem_path(source, incident_id)
    source.api.put(path, {"postmortem": {"body_draft": "# Why\n\nA cable."}})
    assert source.api.put(path + "/publish", {"postmortem": {}}).status == 200

    import_page(source, target)

    copy_path = postmortem_path(target, twin(target, "Outage"))
    read = target.api.get(copy_path)
    assert read.status == 200, read.text
    assert read.json == source.api.get(path).json
    edited = target.api.put(copy_path, {"postmortem": {"body_draft": "# Why\n\nTwo cables."}})
    assert edited.status == 200, edited.text
    assert edited.json["body"] == "# Why\n\nA cable."
    assert edited.json["body_draft"] == "# Why\n\nTwo cables."
    assert target.api.put(copy_path + "/revert").status == 200


def test_a_republished_imported_postmortem_notifies_nobody_again(pair, drain):
    source, target = pair
    incident_id = make_incident(source, "Outage")
    path = postmortem_path(source, incident_id)
    source.api.put(path, {"postmortem": {"body_draft": "Why"}})
    source.api.put(path + "/publish", {"postmortem": {"notify_subscribers": True}})
    import_page(source, target)
    subscribe(target, "reader@x.io")
    drain()

    copy_path = postmortem_path(target, twin(target, "Outage"))
    assert target.api.put(copy_path + "/revert").status == 200
    again = target.api.put(copy_path + "/publish", {"postmortem": {"notify_subscribers": True}})
    assert again.status == 200, again.text
    drain()
    # Its subscribers heard of it once, at the source.
    assert not [mail for mail in sent_mail() if "reader@x.io" in mail.to]


# Item 2: a draft postmortem


def test_a_draft_postmortem_is_imported(pair):
    source, target = pair
    incident_id = make_incident(source, "Outage")
    path = postmortem_path(source, incident_id)
    assert source.api.put(path, {"postmortem": {"body_draft": "Still writing"}}).status == 200

    import_page(source, target)

    copy_path = postmortem_path(target, twin(target, "Outage"))
    read = target.api.get(copy_path)
    assert read.status == 200, read.text
    assert read.json == source.api.get(path).json
    assert read.json["body_draft"] == "Still writing" and read.json["published_at"] is None
    incident = target.api.get(copy_path.removesuffix("/postmortem")).json
    assert incident["status"] == "resolved" and incident["postmortem_body"] is None


def test_a_reverted_postmortem_is_imported_as_its_draft(pair):
    source, target = pair
    incident_id = make_incident(source, "Outage")
    path = postmortem_path(source, incident_id)
    source.api.put(path, {"postmortem": {"body_draft": "Once out"}})
    source.api.put(path + "/publish", {"postmortem": {}})
    source.api.put(path + "/revert")

    import_page(source, target)

    copy = target.api.get(postmortem_path(target, twin(target, "Outage")))
    assert copy.json == source.api.get(path).json


def test_postmortems_are_written_once(pair):
    source, target = pair
    for name in ("Draft", "Published"):
        path = postmortem_path(source, make_incident(source, name))
        source.api.put(path, {"postmortem": {"body_draft": name}})
    source.api.put(path + "/publish", {"postmortem": {}})
    import_page(source, target)

    again, _ = import_page(source, target)

    assert again["imported"]["incidents"]["written"] == 0


def test_a_source_without_the_postmortem_read_gives_the_published_text_whole(pair, monkeypatch):
    source, target = pair
    refusing(monkeypatch, source, "/postmortem")
    path = postmortem_path(source, make_incident(source, "Published"))
    source.api.put(path, {"postmortem": {"body_draft": "Out"}})
    published = source.api.put(path + "/publish", {"postmortem": {}}).json
    source.api.put(
        postmortem_path(source, make_incident(source, "Draft")),
        {"postmortem": {"body_draft": "In"}},
    )

    import_page(source, target)

    copy_path = postmortem_path(target, twin(target, "Published"))
    read = target.api.get(copy_path)
    assert read.status == 200, read.text
    assert read.json["body"] == "Out" and read.json["published_at"] == published["published_at"]
    assert target.api.get(postmortem_path(target, twin(target, "Draft"))).status == 404
    again, _ = import_page(source, target)
    assert again["imported"]["incidents"]["written"] == 0  # its preview key is kept
    assert target.api.put(copy_path, {"postmortem": {"body_draft": "More"}}).status == 200


# Item 3: an incident subscriber whose incident is gone


def test_an_incident_subscriber_whose_incident_is_gone_is_skipped_and_reported(pair):
    source, target = pair
    incident_id = make_incident(source, "Gone")
    orphan = subscribe(source, "orphan@x.io", incident_id)
    subscribe(source, "page@x.io")
    assert source.api.delete(f"/v1/pages/{source.page_id}/incidents/{incident_id}").status == 200

    summary, said = import_page(source, target)

    assert set(subscribers(target)) == {"page@x.io"}
    assert summary["imported"]["subscribers"] == {"read": 2, "written": 1, "skipped": 1}
    (skipped,) = summary["skipped"]
    assert skipped["kind"] == "subscribers" and skipped["id"] == orphan["id"]
    assert incident_id in skipped["why"]
    assert f"subscribers {orphan['id']} skipped" in said
    json.dumps(summary)  # printed as JSON by the admin CLI


def test_a_dry_run_reports_the_subscriber_it_would_skip(pair):
    source, target = pair
    incident_id = make_incident(source, "Gone")
    orphan = subscribe(source, "orphan@x.io", incident_id)
    source.api.delete(f"/v1/pages/{source.page_id}/incidents/{incident_id}")
    said = io.StringIO()
    request = run.Request(
        "http://source.invalid", "k", source.page_id, target.organization_id, target.page_id
    )
    request.dry_run = True

    summary = run.run(request, Progress(said))

    assert [s["id"] for s in summary["would_skip"]] == [orphan["id"]]
    assert subscribers(target) == {}


def test_an_incident_subscriber_of_an_incident_imported_before_keeps_it(pair):
    """Deleted at the source after an import, the incident stays here: so do its subscribers."""
    source, target = pair
    incident_id = make_incident(source, "Gone later")
    subscribe(source, "one@x.io", incident_id)
    import_page(source, target)
    source.api.delete(f"/v1/pages/{source.page_id}/incidents/{incident_id}")

    summary, _ = import_page(source, target)

    copy = subscribers(target)["one@x.io"]
    assert copy["incident_id"] == twin(target, "Gone later") and copy["state"] == "active"
    assert "skipped" not in summary["imported"]["subscribers"]


def test_a_page_subscriber_an_earlier_import_made_of_an_orphan_is_unsubscribed(pair):
    """What the importer once wrote wrong: an orphan as a page subscriber. A new run takes
    back what it widened."""
    from chalicelib.domain import import_mapping, imported

    source, target = pair
    incident_id = make_incident(source, "Gone")
    orphan = subscribe(source, "orphan@x.io", incident_id)
    source.api.delete(f"/v1/pages/{source.page_id}/incidents/{incident_id}")
    scope = import_mapping.scope_of(target.page_id, "subscribers")
    written_before = {**orphan, "incident_id": None}  # as the earlier importer built it
    import_mapping.put(
        target.page_id,
        scope,
        orphan["id"],
        lambda ours: imported.subscriber(target.page_id, written_before, ours, {}, {}),
        imported.new_id_for(orphan),
        public=False,
    )
    assert subscribers(target)["orphan@x.io"]["state"] == "active"

    summary, said = import_page(source, target)

    assert subscribers(target)["orphan@x.io"]["state"] == "unsubscribed"
    assert "unsubscribed" in said
    assert summary["skipped"][0]["id"] == orphan["id"]


# Item 4: unsubscribed subscribers


def test_unsubscribed_subscribers_are_imported_unsubscribed(pair):
    source, target = pair
    left = subscribe(source, "left@x.io")
    subscribe(source, "stays@x.io")
    unsubscribe(source, left["id"])

    import_page(source, target)

    copy = subscribers(target)
    assert copy["left@x.io"]["state"] == "unsubscribed"
    assert copy["stays@x.io"]["state"] == "active"
    listed = target.api.get(f"/v1/pages/{target.page_id}/subscribers?state=all").json
    assert [s["email"] for s in listed] == ["stays@x.io"]
    counts = target.api.get(f"/v1/pages/{target.page_id}/subscribers/histogram_by_state").json
    assert counts["email"]["total"] == 1
    # Unsubscribed, it holds no claim on its address: it may subscribe here again.
    assert (
        target.api.post(
            f"/v1/pages/{target.page_id}/subscribers", {"subscriber": {"email": "left@x.io"}}
        ).status
        == 201
    )


def test_a_source_without_the_unsubscribed_list_says_so(pair, monkeypatch):
    source, target = pair
    refusing(monkeypatch, source, "/subscribers/unsubscribed")
    unsubscribe(source, subscribe(source, "left@x.io")["id"])
    subscribe(source, "stays@x.io")

    _, said = import_page(source, target)

    assert set(subscribers(target)) == {"stays@x.io"}
    assert "unsubscribed subscribers: not readable from this source" in said


def test_a_subscriber_unsubscribed_at_the_source_after_an_import_is_unsubscribed_here(pair):
    source, target = pair
    leaving = subscribe(source, "leaving@x.io")
    import_page(source, target)
    unsubscribe(source, leaving["id"])
    subscribe(source, "leaving@x.io")  # back at the source, as a new subscriber

    import_page(source, target)

    states = sorted(
        s["state"]
        for s in target.api.get(f"/v1/pages/{target.page_id}/subscribers?state=all").json
        + target.api.get(f"/v1/pages/{target.page_id}/subscribers/unsubscribed").json
    )
    assert states == ["active", "unsubscribed"]


def test_a_subscriber_who_left_here_is_not_added_back_by_a_later_import(pair):
    source, target = pair
    subscribe(source, "left-here@x.io")
    import_page(source, target)
    unsubscribe(target, subscribers(target)["left-here@x.io"]["id"])

    again, _ = import_page(source, target)

    assert subscribers(target)["left-here@x.io"]["state"] == "unsubscribed"
    assert again["imported"]["subscribers"]["written"] == 0
