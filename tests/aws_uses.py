"""Records what each Lambda function of the app uses of AWS while the in-process tests run
(`infra/grants.py` says what a use is and checks the roles against them). On when
`AWS_USES_DIR` is set (`make test`, `make uses`): each test process writes its own file there
when it ends.

A call is the function's that was running when it was made: the route's (`api_handler`, the
one function of the REST API) or the event function's, as the invocation's log keys name it
(`chalicelib.observability.logs`). Calls made outside any invocation (a test's own set-up)
are nobody's. The two secrets are read once per process and kept, so a run would show only
the first function to need one: their uses are recorded where the code asks for them, at
every ask, cached or not.
"""

import atexit
import json
import os
from pathlib import Path

import botocore.client

from chalicelib import config
from chalicelib.domain import signing
from chalicelib.observability import logs
from infra.grants import API_FUNCTION, uses_of_call

_seen: dict[str, set[str]] = {}


def _function_running() -> str | None:
    keys = logs.current_keys()
    if "route" in keys:
        return API_FUNCTION
    return keys.get("function")


def _use(*uses: str) -> None:
    function = _function_running()
    if function:
        _seen.setdefault(function, set()).update(uses)


def _recording(original):
    def call(self, operation_name, api_params):
        service = self.meta.service_model.service_name
        _use(*uses_of_call(service, operation_name, api_params, config.table_name("")))
        return original(self, operation_name, api_params)

    return call


def _asking(original, use: str):
    def ask(*args, **kwargs):
        _use(use)
        return original(*args, **kwargs)

    ask.cache_clear = getattr(original, "cache_clear", None)
    return ask


def install(directory: Path) -> None:
    botocore.client.BaseClient._make_api_call = _recording(
        botocore.client.BaseClient._make_api_call
    )
    signing._secret = _asking(signing._secret, "secret:signing")
    config.origin_verify_secret_id = _asking(config.origin_verify_secret_id, "secret:origin")
    directory.mkdir(parents=True, exist_ok=True)
    atexit.register(_write, directory / f"{os.getpid()}.json")


def _write(path: Path) -> None:
    if _seen:
        path.write_text(json.dumps({name: sorted(uses) for name, uses in _seen.items()}))
