"""Benchmarks print figures; they run by `make bench`, never in `make test`."""

from tests.api.conftest import (  # noqa: F401
    Answer,
    Api,
    World,
    aws,
    chalice_app,
    dynamodb_calls,
    http,
    make_world,
    world,
)
