"""pydantic models of every request and response body; the OpenAPI document comes from them.

Code outside this package reaches a schema by its name, `schemas.ComponentOut`, and a route
declares its bodies by name (`body="ComponentCreate"`): the module defining it is imported on
that first use. Importing pydantic and building the models costs more than the rest of the app
together, and the queue and scheduled functions (which share `app.py` with the API) mostly
never validate a body, so a cold start pays for the schemas only when it uses one.
"""

import importlib

# Searched in this order for a name; a schema's name is unique across them.
_MODULES = (
    "common",
    "components",
    "embed",
    "incidents",
    "integrations",
    "metrics",
    "organizations",
    "page_access",
    "pages",
    "public",
    "subscribers",
    "checks",
)


def __getattr__(name: str):
    if name.startswith("_"):
        raise AttributeError(name)
    if name in _MODULES:  # `from chalicelib.schemas import pages`: the module itself
        return importlib.import_module(f"{__name__}.{name}")
    for module_name in _MODULES:
        module = importlib.import_module(f"{__name__}.{module_name}")
        found = getattr(module, name, None)
        if isinstance(found, type):
            globals()[name] = found  # the next lookup of `name` is a plain attribute
            return found
    raise AttributeError(f"no schema named {name!r}")
