"""Validated bodies as the domain's plain inputs: one converter for every resource, so that a
handler reads "decode, convert, call the rule" and the rules never see pydantic."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, TypeVar

from chalicelib.domain.inputs import UNSET

T = TypeVar("T")


def plain(body: Any, input_class: type[T]) -> T:
    """The validated pydantic `body` as the domain's dataclass `input_class`, each field from
    the body's field of that name. A field the input defaults to `UNSET` is taken only when
    the body set it (sent, even as null), so that a PATCH leaving a field out keeps it; every
    other field takes the body's value, its default when left out. A nested body becomes the
    dataclass its field's annotation names. A body field the input has no field for would be
    lost: a TypeError names it."""
    from pydantic import BaseModel  # loaded with `body`; an import here costs nothing

    fields = dataclasses.fields(input_class)
    lost = set(type(body).model_fields) - {field.name for field in fields}
    if lost:
        raise TypeError(f"{input_class.__name__} has no field for {', '.join(sorted(lost))}")
    values = {}
    for field in fields:
        if field.default is UNSET and field.name not in body.model_fields_set:
            continue
        value = getattr(body, field.name)
        if isinstance(value, BaseModel):
            value = plain(value, _dataclass_in(input_class, field.name))
        values[field.name] = value
    return input_class(**values)


def _dataclass_in(input_class: type, name: str) -> type:
    """The dataclass among the types the field `name` of `input_class` is annotated with."""
    annotation = typing.get_type_hints(input_class)[name]
    return next(kind for kind in typing.get_args(annotation) if dataclasses.is_dataclass(kind))
