"""Validated bodies become the domain's plain inputs with their PATCH meaning kept: a field left
out is UNSET where the input tells it apart from null, and nested bodies become dataclasses."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pydantic import BaseModel

from chalicelib.domain.inputs import UNSET, Unset, filled, given
from chalicelib.http.inputs import plain


class LinkBody(BaseModel):
    url: str
    name: str = "default name"


class Body(BaseModel):
    title: str
    note: str | None = None
    cleared: str | None = None
    flag: bool = True
    link: LinkBody | None = None


@dataclass(frozen=True)
class Link:
    url: str
    name: str


@dataclass(frozen=True)
class Input:
    title: str
    note: str | None = None
    cleared: str | None | Unset = UNSET
    flag: bool = False
    link: Link | None | Unset = UNSET


def test_a_field_left_out_is_unset_where_the_input_tells_it_from_null():
    fields = plain(Body(title="T"), Input)
    assert fields.cleared is UNSET and fields.link is UNSET
    assert given(fields) == {"title": "T", "note": None, "flag": True}


def test_a_field_sent_as_null_is_given_as_none():
    fields = plain(Body(title="T", cleared=None, link=None), Input)
    assert (fields.cleared, fields.link) == (None, None)
    assert {"cleared", "link"} <= set(given(fields))


def test_a_field_left_out_takes_the_bodys_default_not_the_inputs():
    assert plain(Body(title="T"), Input).flag is True


def test_a_nested_body_becomes_the_dataclass_its_field_names():
    fields = plain(Body(title="T", link={"url": "https://example.com"}), Input)
    assert fields.link == Link("https://example.com", "default name")


def test_a_body_field_the_input_lacks_is_refused_rather_than_lost():
    @dataclass(frozen=True)
    class Narrow:
        title: str

    with pytest.raises(TypeError, match="no field for cleared, flag, link, note"):
        plain(Body(title="T"), Narrow)


def test_filled_gives_none_for_what_was_not_given():
    assert filled(Input(title="T", cleared="x")) == Input("T", None, "x", False, None)


def test_unset_reads_as_empty():
    assert not UNSET and (UNSET or "default") == "default" and repr(UNSET) == "UNSET"


def test_a_component_update_keeps_what_it_leaves_out():
    from chalicelib.domain.components import ComponentInput, ThirdPartyLink
    from chalicelib.schemas.components import ComponentUpdate

    body = ComponentUpdate.model_validate(
        {
            "component": {
                "name": "API",
                "group_id": "",
                "third_party": {
                    "summary_url": "https://status.example.com/api/v2/summary.json",
                    "component_id": "c1",
                },
            }
        }
    )
    fields = plain(body.component, ComponentInput)
    assert fields.group_id is None  # an empty group_id takes it out of its group
    assert fields.automation_email is UNSET and fields.start_date is UNSET
    assert fields.third_party == ThirdPartyLink(
        "https://status.example.com/api/v2/summary.json", "c1"
    )
