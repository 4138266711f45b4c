"""Third-party components (SPEC 3.1): a component follows a component of another
Statuspage-compatible page, polled once a tick per source; in both path styles and encodings."""

import logging

import pytest

from tests.summary_source import SummarySource
from tests.webhook_sink import WebhookSink

STYLES = ["", ".json"]


def components_path(world, suffix=""):
    return f"/v1/pages/{world.page_id}/components{suffix}"


def follow(world, source_url, source_component_id="vendor-api", **fields):
    body = {"name": "Vendor API", **fields}
    body["third_party"] = {"summary_url": source_url, "component_id": source_component_id}
    answer = world.api.post(components_path(world), {"component": body})
    assert answer.status == 201, answer.text
    return answer.json


def read(world, component_id):
    return world.api.get(components_path(world, f"/{component_id}")).json


def set_status(world, component_id, status):
    answer = world.api.patch(
        components_path(world, f"/{component_id}"), {"component": {"status": status}}
    )
    assert answer.status == 200, answer.text
    return answer.json


@pytest.fixture
def tick(http):
    """The app's scheduled function, as EventBridge invokes it."""

    def run():
        event = http.events.generate_cw_event(
            source="aws.events", detail_type="Scheduled Event", detail={}, resources=[]
        )
        http.lambda_.invoke("every_minute", event)

    return run


@pytest.fixture
def source():
    with SummarySource({"vendor-api": "major_outage", "vendor-web": "operational"}) as running:
        yield running


def history_of(component_id):
    from chalicelib.store.components import ComponentStatusDay

    return [
        (old, new) for day in ComponentStatusDay.query(component_id) for _, old, new in day.changes
    ]


@pytest.mark.parametrize("suffix", STYLES)
@pytest.mark.parametrize("form", [False, True])
def test_a_component_is_made_to_follow_a_source_in_either_style_and_encoding(
    world, source, suffix, form
):
    link = {"summary_url": source.url, "component_id": "vendor-api"}
    created = world.api.post(
        components_path(world, suffix),
        {"component": {"name": "Vendor", "third_party": link}},
        form=form,
    )
    assert created.status == 201, created.text
    assert created.json["third_party"] == {**link, "official_status": None}
    assert created.json["status"] == "operational"  # until the first poll

    plain = world.api.post(
        components_path(world, suffix), {"component": {"name": "Ours"}}, form=form
    )
    assert plain.json["third_party"] is None
    updated = world.api.patch(
        components_path(world, f"/{plain.json['id']}{suffix}"),
        {"component": {"third_party": {**link, "component_id": "vendor-web"}}},
        form=form,
    )
    assert updated.status == 200, updated.text
    assert updated.json["third_party"]["component_id"] == "vendor-web"
    assert read(world, plain.json["id"])["third_party"]["component_id"] == "vendor-web"


@pytest.mark.parametrize("suffix", STYLES)
@pytest.mark.parametrize("form", [False, True])
@pytest.mark.parametrize(
    ("link", "field"),
    [
        (
            {"summary_url": "ftp://status.example.com/api/v2/summary.json"},
            "third_party.summary_url",
        ),
        ({"summary_url": "status.example.com/api/v2/summary.json"}, "third_party.summary_url"),
        ({"summary_url": "https://status.example.com/"}, "third_party.summary_url"),
        (
            {"summary_url": "https://status.example.com/api/v2/summary.json"},
            "third_party.component_id",
        ),
        (
            {"summary_url": "https://status.example.com/api/v2/summary.json", "component_id": " "},
            "third_party.component_id",
        ),
        ({"component_id": "abc"}, "third_party.summary_url"),
    ],
)
def test_a_link_that_is_not_a_summary_and_a_component_is_a_422(world, suffix, form, link, field):
    answer = world.api.post(
        components_path(world, suffix),
        {"component": {"name": "Vendor", "third_party": link}},
        form=form,
    )
    assert answer.status == 422, answer.text
    assert answer.json["error"] == "Unprocessable entity"
    assert field in answer.json["errors"]
    component = world.api.post(components_path(world), {"component": {"name": "Ours"}}).json
    answer = world.api.patch(
        components_path(world, f"/{component['id']}{suffix}"),
        {"component": {"third_party": link}},
        form=form,
    )
    assert answer.status == 422, answer.text
    assert field in answer.json["errors"]


@pytest.mark.parametrize("suffix", STYLES)
@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.7/api/v2/summary.json",
        "http://127.0.0.1:8000/s/acme/api/v2/summary.json",
        "http://169.254.169.254/api/v2/summary.json",
        "http://[2002:a9fe:a9fe::]/api/v2/summary.json",
        "https://no-such-host.invalid/api/v2/summary.json",
    ],
)
def test_a_source_at_an_internal_address_is_refused_without_the_private_targets_setting(
    world, monkeypatch, suffix, url
):
    monkeypatch.delenv("ALLOW_PRIVATE_TARGETS")
    answer = world.api.post(
        components_path(world, suffix),
        {"component": {"name": "Vendor", "third_party": {"summary_url": url, "component_id": "x"}}},
    )
    assert answer.status == 422, answer.text
    assert answer.json["errors"] == {
        "third_party.summary_url": ["must resolve to a public address"]
    }


@pytest.mark.parametrize("suffix", STYLES)
def test_a_group_cannot_follow_a_source(world, source, suffix):
    member = world.api.post(components_path(world), {"component": {"name": "Part"}}).json
    group = world.api.post(
        f"/v1/pages/{world.page_id}/component-groups",
        {"component_group": {"name": "Group", "components": [member["id"]]}},
    ).json
    answer = world.api.patch(
        components_path(world, f"/{group['id']}{suffix}"),
        {"component": {"third_party": {"summary_url": source.url, "component_id": "vendor-api"}}},
    )
    assert answer.status == 422, answer.text
    assert list(answer.json["errors"]) == ["third_party"]


def test_the_tick_applies_the_source_status_as_a_status_change(world, source, tick, drain):
    with WebhookSink() as sink:
        component = follow(world, source.url)
        subscribed = world.api.post(
            f"/v1/pages/{world.page_id}/subscribers",
            {
                "subscriber": {
                    "endpoint": sink.url,
                    "email": "ops@example.com",
                    "component_ids": [component["id"]],
                }
            },
        )
        assert subscribed.status == 201, subscribed.text
        drain()

        tick()

        shown = read(world, component["id"])
        assert shown["status"] == "major_outage"
        assert shown["third_party"]["official_status"] == "major_outage"
        assert history_of(component["id"]) == [("operational", "major_outage")]
        drain()
        (delivered,) = [
            hook["json"] for hook in sink.received if "component_update" in hook["json"]
        ]
        assert delivered["component_update"]["old_status"] == "operational"
        assert delivered["component_update"]["new_status"] == "major_outage"
        public = world.api.get(f"/s/{world.page_id}/api/v2/summary.json").json
        assert [c["status"] for c in public["components"]] == ["major_outage"]
        assert public["status"]["indicator"] == "critical"


def test_a_status_set_by_hand_holds_until_the_source_changes(world, source, tick):
    component = follow(world, source.url)
    tick()
    assert set_status(world, component["id"], "operational")["status"] == "operational"

    tick()  # the source still says major_outage: not a change there
    assert read(world, component["id"])["status"] == "operational"

    source.statuses["vendor-api"] = "degraded_performance"
    tick()
    shown = read(world, component["id"])
    assert shown["status"] == "degraded_performance"
    assert shown["third_party"]["official_status"] == "degraded_performance"

    set_status(world, component["id"], "major_outage")
    restored = set_status(world, component["id"], "")
    assert restored["status"] == "degraded_performance"
    assert history_of(component["id"])[-1] == ("major_outage", "degraded_performance")


def test_empty_status_restores_the_official_status_in_a_form_body(world, source, tick):
    component = follow(world, source.url)
    tick()
    set_status(world, component["id"], "operational")
    answer = world.api.patch(
        components_path(world, f"/{component['id']}.json"),
        [("component[status]", "")],
        form=True,
    )
    assert answer.json["status"] == "major_outage"


def test_each_source_is_fetched_once_a_tick_however_many_components_follow_it(
    make_world, source, tick
):
    worlds = [make_world(), make_world()]
    followers = [
        (w, follow(w, source.url, name)) for w in worlds for name in ("vendor-api", "vendor-web")
    ]
    tick()
    assert source.requests == 1
    assert [read(w, c["id"])["status"] for w, c in followers] == ["major_outage", "operational"] * 2

    source.statuses["vendor-web"] = "partial_outage"
    tick()
    assert source.requests == 2
    assert [read(w, c["id"])["status"] for w, c in followers] == [
        "major_outage",
        "partial_outage",
    ] * 2


@pytest.mark.parametrize("trouble", ["down", "error", "garbage", "not a summary", "redirect"])
def test_an_unreachable_or_garbage_source_keeps_the_last_status(world, tick, caplog, trouble):
    with (
        SummarySource({"vendor-api": "partial_outage"}) as source,
        SummarySource({"vendor-api": "operational"}) as elsewhere,
    ):
        component = follow(world, source.url)
        tick()
        assert read(world, component["id"])["status"] == "partial_outage"
        source.statuses["vendor-api"] = "operational"
        if trouble == "down":
            source.server.shutdown()
            source.server.server_close()  # the connection is refused
        elif trouble == "error":
            source.status = 500
        elif trouble == "garbage":
            source.raw = b"<html>\x00\xff not json"
        elif trouble == "not a summary":
            source.raw = b'{"components": "none"}'
        elif trouble == "redirect":
            source.redirect_to = elsewhere.url
        with caplog.at_level(logging.WARNING):
            tick()
        assert read(world, component["id"])["status"] == "partial_outage"
        assert "unreachable or not a summary.json" in caplog.text
        assert elsewhere.requests == 0


def test_a_component_that_stops_following_is_left_alone(world, source, tick):
    component = follow(world, source.url)
    tick()
    answer = world.api.patch(
        components_path(world, f"/{component['id']}.json"),
        [("component[third_party]", "")],
        form=True,
    )
    assert answer.status == 200, answer.text
    assert answer.json["third_party"] is None
    source.statuses["vendor-api"] = "operational"
    tick()
    assert read(world, component["id"])["status"] == "major_outage"
    assert set_status(world, component["id"], "")["status"] == "major_outage"  # nothing to restore


def test_a_source_nobody_follows_any_more_is_no_longer_polled(world, source, tick):
    component = follow(world, source.url)
    tick()
    assert world.api.delete(components_path(world, f"/{component['id']}")).status == 204
    source.statuses["vendor-api"] = "operational"
    tick()  # finds no follower: forgets the source
    polled = source.requests
    tick()
    assert source.requests == polled


def test_a_tick_reads_the_same_however_many_components_pages_have(
    world, source, tick, dynamodb_calls
):
    follow(world, source.url)
    tick()

    def tick_calls():
        before = dynamodb_calls.count()
        tick()
        return dynamodb_calls.count() - before

    quiet = tick_calls()
    for number in range(30):
        world.api.post(components_path(world), {"component": {"name": f"Part {number}"}})
    assert tick_calls() == quiet


def test_the_openapi_document_describes_the_link(world):
    document = world.api.as_key(None).get("/v1/openapi.json").json
    schemas = document["components"]["schemas"]
    fields = schemas["ComponentFields"]["properties"]["third_party"]
    assert "ThirdPartyLink" in str(fields)
    assert set(schemas["ThirdPartyLink"]["required"]) == {"summary_url", "component_id"}
    assert "third_party" in schemas["ComponentOut"]["properties"]
    assert "official_status" in schemas["ThirdPartyOut"]["properties"]


def test_a_stored_source_that_cannot_be_called_keeps_no_other_from_being_polled(world, tick):
    """A source stored before the rules refused its URL (an older version stored any port):
    each tick skips it, and the page's other third-party components still follow theirs."""
    from chalicelib.store.third_party import ThirdPartySource

    with SummarySource({"vendor-api": "partial_outage"}) as source:
        component = follow(world, source.url)
        ThirdPartySource(url="http://127.0.0.1:99999/api/v2/summary.json").save()
        tick()
        assert read(world, component["id"])["status"] == "partial_outage"
