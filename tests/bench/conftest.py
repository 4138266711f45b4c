"""Benchmarks print figures; they run by `make bench`, never in `make test`."""

from tests.api.conftest import (  # noqa: F401
    Answer,
    Api,
    World,
    dynamodb_calls,
    empty_queues,
    http,
    make_world,
    world,
)
