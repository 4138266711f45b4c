"""A publish costs what its change touched: one incident update renders that incident's page,
the home page, the feeds, the status API documents and the history page that lists it, never
the page of every incident of the past days; on S3 it reads each place's manifest once and
makes no HEAD per file. A busy day's incidents are capped on the home page and paged in the
history, the rest reachable by plain links from every place the page is served at."""

import re
import uuid

import boto3
import pytest

from chalicelib import config
from chalicelib.sitestore.bucket import BucketStore
from tests.dynamodb_calls import recording as recording_reads
from tests.public.conftest import make_component, make_incident, update_page
from tests.s3_requests import recording

# What one incident update may render at each place (besides the incident's own page).
TOUCHED = {
    "",
    "history",
    "history.rss",
    "history.atom",
    *(
        f"api/v2/{document}"
        for document in (
            "summary.json",
            "status.json",
            "components.json",
            "incidents.json",
            "incidents/unresolved.json",
            "scheduled-maintenances.json",
            "scheduled-maintenances/upcoming.json",
            "scheduled-maintenances/active.json",
        )
    ),
}


@pytest.fixture
def bucket_store() -> BucketStore:
    name = f"site-{uuid.uuid4().hex[:12]}"
    boto3.client("s3", region_name=config.region()).create_bucket(Bucket=name)
    return BucketStore(name)


def resolve(world, incident_id: str, body: str = "Fixed") -> None:
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}/incidents/{incident_id}",
        {"incident": {"status": "resolved", "body": body}},
    )
    assert answer.status == 200, answer.text


def test_one_incident_update_renders_only_what_it_touched_and_heads_nothing(world, bucket_store):
    from chalicelib.public import publish, site
    from chalicelib.store.models import Page

    update_page(world, domain=f"status.{world.page_id}.example.org")
    make_component(world, "API")
    past = []
    for number in range(12):
        past.append(make_incident(world, f"Past {number}", status="investigating"))
        resolve(world, past[-1]["id"])
    open_incident = make_incident(world, "Slow API", status="investigating", body="Looking")
    assert publish.publish_page(world.page_id, bucket_store, force=True) == "published"

    answer = world.api.patch(
        f"/v1/pages/{world.page_id}/incidents/{open_incident['id']}",
        {"incident": {"status": "identified", "body": "A slow query"}},
    )
    assert answer.status == 200, answer.text
    built = publish.build(world.page_id, bucket_store)
    folders = [mount.folder for mount in site.mounts_of(Page.get(world.page_id))]
    assert len(folders) == 4
    allowed = TOUCHED | {
        f"history?{key.partition('?')[2]}"
        for key in built.manifests[folders[0]]["files"]
        if key.startswith("history?")
    }
    allowed |= {f"incidents/{open_incident['id']}"}
    for folder in folders:
        rendered = set(built.rendered[folder])
        assert rendered <= allowed, rendered - allowed
        assert f"incidents/{open_incident['id']}" in rendered
        assert not any(key.startswith(f"incidents/{p['id']}") for p in past for key in rendered)
        # Every file is still named by the place's manifest (those kept as they were too).
        assert {f"incidents/{p['id']}" for p in past} <= set(built.manifests[folder]["files"])

    # Stored on S3: the manifests read once and the marker, no HEAD, the touched files PUT.
    with recording() as s3_requests:
        assert publish.publish_page(world.page_id, bucket_store) == "published"
    assert s3_requests.count("HeadObject") == 0
    assert s3_requests.count("GetObject") == len(folders) + 1
    assert s3_requests.count("PutObject") <= len(folders) * (len(allowed) + 1) + 1


def test_a_busy_day_publishes_a_bounded_home_page_and_a_paged_history(world, visitor):
    from chalicelib.public import routes
    from chalicelib.views import snapshot

    make_component(world, "API")
    made = []
    for number in range(130):
        made.append(make_incident(world, f"Burst {number}", status="resolved")["id"])
    # The snapshot's reads are bounded: the day's newest, not all 130.
    with recording_reads() as calls:
        snapshot.refresh(world.page_id, stored=False)
    assert calls.items_read() < 100, calls.summary()
    home = visitor.get("/")
    assert home.status == 200
    listed = set(re.findall(r'/incidents/([0-9a-z]{16})"', home.text))
    # Today lists its newest incidents, and links to the others in the history.
    assert listed == set(made[-snapshot.PER_DAY :])
    more = re.search(r'href="(/s/[^"]+/history\?[^"]+)">More incidents on', home.text)
    assert more, "no link to the day's other incidents"
    assert len(home.text) < 100_000

    history = visitor.get("/history")
    assert history.status == 200
    first = re.findall(r'/incidents/([0-9a-z]{16})"', history.text)
    assert first == list(reversed(made))[: routes.HISTORY_PAGE]
    seen = list(first)
    link = more.group(1).replace("&amp;", "&")
    pages = 0
    while link:
        page = world.api.get(link)
        assert page.status == 200, page.text
        found = re.findall(r'/incidents/([0-9a-z]{16})"', page.text)
        assert len(found) <= routes.HISTORY_PAGE
        seen += [incident for incident in found if incident not in seen]
        older = re.search(r'href="([^"]+)" id="history-more"', page.text)
        link = older.group(1).replace("&amp;", "&") if older else None
        pages += 1
    assert pages >= 2
    assert sorted(seen) == sorted(made)
    # A cursor that names no incident of the page's period, or is no incident id at all.
    assert visitor.get("/history?before=0000000000000000").status == 404
    assert visitor.get("/history?before=no%20such%20thing").status == 400


def test_a_busy_day_before_today_lists_its_newest_and_links_to_the_rest(
    world, visitor, monkeypatch
):
    from datetime import UTC, datetime, timedelta

    from chalicelib import clock
    from chalicelib.views import content

    # The newest read holds 5: today's incidents fill it, yesterday's are read on their own.
    monkeypatch.setattr(content, "NEWEST_LISTED", 5)
    yesterday, today = datetime(2030, 5, 2, 8, tzinfo=UTC), datetime(2030, 5, 3, 8, tzinfo=UTC)
    made: dict[datetime, list[str]] = {yesterday: [], today: []}
    try:
        for day, count in ((yesterday, 14), (today, 6)):
            for number in range(count):
                clock.freeze(day + timedelta(minutes=number))
                made[day].append(
                    make_incident(world, f"On {day:%d} {number}", status="resolved")["id"]
                )
        home = visitor.get("/")
    finally:
        clock.freeze(None)
    assert home.status == 200
    listed = set(re.findall(r'/incidents/([0-9a-z]{16})"', home.text))
    assert listed == set(made[today]) | set(made[yesterday][-10:])
    more = re.findall(r'href="([^"]+)">More incidents on ([^<]+)<', home.text)
    assert [label for _, label in more] == ["May 2, 2030"]
    rest = world.api.get(more[0][0].replace("&amp;", "&"))
    assert rest.status == 200, rest.text
    assert re.findall(r'/incidents/([0-9a-z]{16})"', rest.text) == made[yesterday][3::-1]
