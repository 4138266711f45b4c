"""Imported items and the mapping of source ids to ours, written together.

`put` writes the items an imported thing becomes (an incident and its first update, a
subscriber and its list entries...) and its mapping in one transaction of the unit of work:
an import killed at any moment leaves each thing either wholly written and mapped or not at
all, so the next run resumes where it stopped. A thing already mapped is rebuilt under the
same id and written only where it differs, so a second run of an unchanged source writes
nothing. Nothing here stages an outbox event: imported history notifies nobody.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pynamodb.models import Model

from chalicelib import clock
from chalicelib.domain import unit_of_work
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.import_mappings import ImportMapping


def scope_of(page_id: str, kind: str) -> str:
    return f"{page_id}#{kind}"


def mapped(scope: str) -> dict[str, str]:
    """Every source id of `scope` and ours."""
    return {
        mapping.source_id: mapping.target_id
        for mapping in ImportMapping.query(scope, consistent_read=True)
    }


def target_of(scope: str, source_id: str) -> str | None:
    try:
        return ImportMapping.get(scope, source_id, consistent_read=True).target_id
    except ImportMapping.DoesNotExist:
        return None


@dataclass
class Built:
    """What one imported thing becomes: `items` (its own item first) to write when they
    differ from what is stored, `stale` items to delete (what an earlier import wrote and
    this state has not)."""

    items: list[Model]
    stale: list[Model] = field(default_factory=list)
    # Extra writes of the change, staged with the items (list entries and counts).
    stage_more: Callable[[Work], None] | None = None


def _stored(item: Model) -> Model | None:
    hash_name, range_name = item._hash_keyname, item._range_keyname
    key = [getattr(item, hash_name)] + ([getattr(item, range_name)] if range_name else [])
    try:
        return type(item).get(*key, consistent_read=True)
    except type(item).DoesNotExist:
        return None


def _values(item: Model) -> dict:
    values = item.serialize()
    values.pop("version", None)
    return values


def _differs(item: Model) -> bool:
    """Whether `item` is not stored as it is; a stored item's version goes onto it, so its
    write is conditional on nobody having changed it since."""
    stored = _stored(item)
    if stored is None:
        return True
    if _values(stored) == _values(item):
        return False
    if "version" in item.get_attributes():
        item.version = stored.version
    return True


def put(
    page_id: str,
    scope: str,
    source_id: str,
    build: Callable[[str], Built],
    new_target: Callable[[str], str],
    *,
    known: str | None = None,
    public: bool = True,
) -> tuple[str, bool]:
    """Write the thing `source_id` of `scope` as `build(our id)` makes it; our id is the
    mapped one or `new_target(seed)`, which gives the same id for the same seed, so the
    items of a thing killed between two transactions are found again. Whether anything was
    written. `known`: our id when the caller has the mapping at hand already."""
    known = known or target_of(scope, source_id)
    target_id = known or new_target(f"{scope}#{source_id}")

    def change(work: Work) -> bool:
        if not public:
            work.quiet()
        built = build(target_id)
        changed = [item for item in built.items if _differs(item)]
        with work.together():  # the thing's own item and its mapping land together
            if changed:
                work.save(changed.pop(0))
            if known is None:
                work.save(
                    ImportMapping(scope, source_id, target_id=target_id, created_at=clock.now())
                )
        for item in changed:
            work.save(item)
        for item in built.stale:
            work.delete(item)
        if built.stage_more is not None:
            built.stage_more(work)
        return not work.empty

    return target_id, unit_of_work.run(page_id, change)


def remember(scope: str, source_id: str, target_id: str) -> None:
    """Map a thing written by a domain function of its own (a new page)."""

    def change(work: Work) -> None:
        work.quiet()
        work.save(ImportMapping(scope, source_id, target_id=target_id, created_at=clock.now()))

    unit_of_work.run(None, change)
