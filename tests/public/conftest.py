"""The public page's tests reuse the API tests' world: the app over moto, an organization,
its owner's key and a page; components and incidents are made through the API."""

from dataclasses import dataclass

import pytest

from tests.api.conftest import *  # noqa: F403 (the app over moto, `world`, `dynamodb_calls`)
from tests.api.conftest import Answer, Api


@dataclass
class Visitor:
    """Someone without a key looking at a page's public paths."""

    api: Api
    page_id: str

    def get(self, suffix: str = "", **kwargs) -> Answer:
        return self.api.get(f"/s/{self.page_id}{suffix}", **kwargs)


@pytest.fixture
def visitor(world) -> Visitor:
    return Visitor(world.api.as_key(None), world.page_id)


def publish(world) -> None:
    """Rebuild the page's snapshot now, as the next view after a write would."""
    from chalicelib.public import snapshot as page_snapshot

    page_snapshot.refresh(world.page_id)


def make_component(world, name: str, **fields) -> dict:
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/components", {"component": {"name": name, **fields}}
    )
    assert answer.status == 201, answer.text
    return answer.json


def make_group(world, name: str, component_ids: list[str]) -> dict:
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/component-groups",
        {"component_group": {"name": name, "components": component_ids}},
    )
    assert answer.status == 201, answer.text
    return answer.json


def make_incident(world, name: str, **fields) -> dict:
    answer = world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": name, **fields}}
    )
    assert answer.status == 201, answer.text
    return answer.json


def update_page(world, **fields) -> dict:
    answer = world.api.patch(f"/v1/pages/{world.page_id}", {"page": fields})
    assert answer.status == 200, answer.text
    return answer.json
