"""Third-party components by clicks: read another status page's summary.json (a loopback
source here; the test stage lets the address filter pass loopback, as the local stage does),
follow the components chosen, see them follow its status, and stop following."""

import re

import pytest

from tests.summary_source import SummarySource


def _screen(world, rest: str = "") -> str:
    return f"/manage/pages/{world.page_id}/third-party{rest}"


def _components(world) -> list[dict]:
    return world.api.get(f"/v1/pages/{world.page_id}/components").json


@pytest.fixture
def source():
    with SummarySource({"vendor-api": "major_outage", "vendor-web": "operational"}) as running:
        yield running


@pytest.fixture
def configurer(console, make_user, world):
    console.sign_in(make_user({"page_configuration": True}))
    console.get(_screen(world))
    return console


def test_a_component_of_another_page_is_chosen_followed_and_then_no_longer_followed(
    configurer, world, source
):
    from chalicelib.jobs import third_party as poll

    assert "No component of this page follows another status page" in configurer.last.text
    offered = configurer.post(_screen(world, "/source"), {"summary_url": source.url})
    assert offered.status == 200, offered.text
    assert source.requests == 1
    rows = re.findall(r'name="follow\[\]\[component_id\]" value="([^"]+)"', offered.text)
    assert rows == ["vendor-api", "vendor-web"]

    followed = configurer.post(
        _screen(world),
        [
            ("summary_url", source.url),
            ("follow[][component_id]", "vendor-api"),
            ("follow[][chosen]", "true"),
            ("follow[][name]", "Vendor API"),
            ("follow[][component_id]", "vendor-web"),
            ("follow[][name]", "Vendor Web"),
        ],
    )
    assert followed.status == 303
    listed = configurer.get(followed.headers["location"])
    assert "Now following: Vendor API" in listed.text
    (component,) = _components(world)
    assert component["name"] == "Vendor API"
    assert component["third_party"]["summary_url"] == source.url
    assert component["third_party"]["component_id"] == "vendor-api"
    assert "not read yet" in listed.text

    poll.run()  # the scheduled poll
    (component,) = _components(world)
    assert component["status"] == "major_outage"
    assert component["third_party"]["official_status"] == "major_outage"

    stopped = configurer.post(_screen(world, f"/{component['id']}/stop"), {})
    assert stopped.status == 303
    shown = configurer.get(stopped.headers["location"])
    assert "Vendor API no longer follows its source" in shown.text
    (component,) = _components(world)
    assert component["third_party"] is None and component["status"] == "major_outage"
    source.statuses["vendor-api"] = "operational"
    poll.run()  # the scheduled poll
    assert _components(world)[0]["status"] == "major_outage"  # no longer follows


def test_an_address_that_is_not_a_summary_or_does_not_answer_one_is_refused(
    configurer, world, source
):
    not_a_summary = configurer.post(
        _screen(world, "/source"), {"summary_url": "http://127.0.0.1:9/status.html"}
    )
    assert not_a_summary.status == 422 and "summary.json" in not_a_summary.text
    source.raw = b"<html>maintenance</html>"
    refused = configurer.post(_screen(world, "/source"), {"summary_url": source.url})
    assert refused.status == 422
    assert "did not answer with a status page&#39;s summary.json" in refused.text
    nothing_chosen = configurer.post(
        _screen(world),
        [("summary_url", source.url), ("follow[][component_id]", "vendor-api")],
    )
    assert nothing_chosen.status == 422
    assert _components(world) == []


def test_a_member_without_page_configuration_sees_the_list_but_no_control(
    console, make_user, world, source
):
    from chalicelib.domain import components

    link = components.ThirdPartyLink(summary_url=source.url, component_id="vendor-api")
    written = components.create_component(
        world.page_id, components.ComponentInput(name="Vendor API", third_party=link)
    )
    console.sign_in(make_user({"incident_manager": True}))
    shown = console.get(_screen(world))
    assert shown.status == 200 and "Vendor API" in shown.text
    assert "Stop following" not in shown.text and "summary_url" not in shown.text

    assert console.post(_screen(world, f"/{written.record.id}/stop"), {}).status == 403
    assert console.post(_screen(world, "/source"), {"summary_url": source.url}).status == 403
    assert source.requests == 0
    forged = [
        ("summary_url", source.url),
        ("follow[][component_id]", "vendor-web"),
        ("follow[][chosen]", "true"),
    ]
    assert console.post(_screen(world), forged).status == 403
    assert [c["name"] for c in _components(world)] == ["Vendor API"]
    assert _components(world)[0]["third_party"] is not None


def test_a_source_on_a_private_address_is_refused_before_it_is_called(
    configurer, world, source, monkeypatch
):
    monkeypatch.delenv("ALLOW_PRIVATE_TARGETS")  # as deployed: public addresses only
    refused = configurer.post(_screen(world, "/source"), {"summary_url": source.url})
    assert refused.status == 422 and "must resolve to a public address" in refused.text
    forged = [
        ("summary_url", source.url),
        ("follow[][component_id]", "vendor-api"),
        ("follow[][chosen]", "true"),
        ("follow[][name]", "Vendor API"),
    ]
    assert configurer.post(_screen(world), forged).status == 422
    assert source.requests == 0 and _components(world) == []
