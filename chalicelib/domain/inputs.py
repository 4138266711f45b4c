"""What the rules take: plain values, as keyword arguments or a module's own frozen dataclass
(`components.ComponentInput`, `pages.PageInput`), never a request body. The API, the console,
the importer, an alert or a test builds them alike (the request layer from its validated
bodies: `chalicelib.http.inputs.plain`).

Where a caller may leave a field out and leaving it out is not the same as giving null (a
PATCH: null clears what it names, a field not given keeps it), the dataclass defaults that
field to `UNSET`; `given` says which fields a caller gave.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any, TypeVar

T = TypeVar("T")


class Unset(Enum):
    """The type of `UNSET`: the value of a field its caller did not give."""

    UNSET = "UNSET"

    def __bool__(self) -> bool:
        return False  # as None: `fields.name or default` reads a field not given as empty

    def __repr__(self) -> str:
        return "UNSET"


UNSET = Unset.UNSET


def or_none(value: T | Unset) -> T | None:
    """The value given, or None when none was."""
    return None if value is UNSET else value


def given(inputs: Any) -> dict[str, Any]:
    """The fields of the dataclass `inputs` that its caller gave, by name."""
    return {
        field.name: getattr(inputs, field.name)
        for field in dataclasses.fields(inputs)
        if getattr(inputs, field.name) is not UNSET
    }


def filled(inputs: T) -> T:
    """`inputs` with None for each field not given (what a new thing has of it)."""
    unset = [
        field.name for field in dataclasses.fields(inputs) if getattr(inputs, field.name) is UNSET
    ]
    return dataclasses.replace(inputs, **dict.fromkeys(unset))
