"""Component rules that need no table: body validation, page order, transaction batches."""

import datetime
from types import SimpleNamespace

import pytest
from pydantic import ValidationError

from chalicelib.domain.components import _position_between
from chalicelib.domain.unit_of_work import Work
from chalicelib.http.errors import from_validation_error
from chalicelib.schemas.components import (
    ComponentCreate,
    ComponentGroupCreate,
    ComponentGroupUpdate,
    ComponentUpdate,
)


def at(*positions):
    return [SimpleNamespace(position=position) for position in positions]


@pytest.mark.parametrize(
    "positions, index, expected",
    [
        ((), 0, 1),
        ((1, 2), 0, 0),
        ((1, 2), 2, 3),
        ((1, 2), 1, 1.5),
        ((1, 1.5), 1, 1.25),
        ((1, 1), 1, None),
        ((1, 1.0000000000000002), 1, None),
    ],
)
def test_a_new_position_falls_between_its_neighbours(positions, index, expected):
    assert _position_between(at(*positions), index) == expected


def test_transactions_fill_up_without_splitting_what_must_land_together(monkeypatch):
    from chalicelib.domain import unit_of_work

    monkeypatch.setattr(unit_of_work, "MAX_TRANSACTION_ITEMS", 4)
    work = Work(None)
    items = [SimpleNamespace(name=n) for n in "abcdefgh"]
    work.save(items[0])
    with work.together():
        work.save(items[1])
        work.save(items[2])
        work.delete(items[3])
    with work.together():
        work.save(items[4])
        work.save(items[5])
        work.save(items[6])
    work.save(items[7])
    batches = [[staged.item.name for staged in batch] for batch in work._transactions()]
    assert batches == [["a", "b", "c", "d"], ["e", "f", "g", "h"]]
    assert Work(None)._transactions() == []


def test_start_date_is_a_day_only():
    fields = ComponentUpdate.model_validate({"component": {"start_date": "2024-02-29"}})
    assert fields.component.start_date == datetime.date(2024, 2, 29)
    cleared = ComponentUpdate.model_validate({"component": {"start_date": ""}})
    assert (
        cleared.component.start_date is None and "start_date" in cleared.component.model_fields_set
    )
    for value in ("2024-02-29T00:00:00", "1709164800", 1709164800, "29.02.2024"):
        with pytest.raises(ValidationError):
            ComponentUpdate.model_validate({"component": {"start_date": value}})


def test_an_empty_create_names_name():
    with pytest.raises(ValidationError) as raised:
        ComponentCreate.model_validate({})
    assert set(from_validation_error(raised.value, "component").errors) == {"name"}


def test_group_member_ids_from_forms():
    single = ComponentGroupUpdate.model_validate({"component_group": {"components": "abc"}})
    assert single.component_group.components == ["abc"]
    repeated = ComponentGroupUpdate.model_validate(
        {"component_group": {"components": ["abc", "def", "abc"]}}
    )
    assert repeated.component_group.components == ["abc", "def"]
    with pytest.raises(ValidationError) as raised:
        ComponentGroupUpdate.model_validate({"component_group": {"components": [""]}})
    assert from_validation_error(raised.value, "component_group").errors == {
        "components": ["a group cannot be empty"]
    }


def test_group_description_may_sit_beside_the_group():
    body = {"description": "Beside", "component_group": {"name": "G", "components": ["a"]}}
    assert ComponentGroupCreate.model_validate(body).component_group.description == "Beside"
    inside = {"description": "Beside", "component_group": {"description": "Inside"}}
    assert ComponentGroupUpdate.model_validate(inside).component_group.description == "Inside"
