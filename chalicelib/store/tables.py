"""The set of tables, found from the models themselves, and their creation.

Every PynamoDB model defined in a module of `chalicelib.store` is a table: a new resource adds
its module and nothing else, and the local stack, the tests and `infra/` all follow.
"""

import importlib
import pkgutil

from pynamodb.models import Model

import chalicelib.store


def all_models() -> list[type[Model]]:
    found: dict[str, type[Model]] = {}
    for module_info in pkgutil.iter_modules(chalicelib.store.__path__):
        module = importlib.import_module(f"chalicelib.store.{module_info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Model)
                and value.__module__ == module.__name__
            ):
                found[value.Meta.table_name] = value
    return sorted(found.values(), key=lambda model: model.Meta.table_name)


def create_all() -> None:
    for model in all_models():
        if not model.exists():
            model.create_table(wait=True, billing_mode="PAY_PER_REQUEST")
