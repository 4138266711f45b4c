"""What a cold start of any of the app's Lambda functions pays before its handler runs.

The API, the fan-out and delivery functions and the scheduled tick all import `app.py`. That
import registers every route but builds nothing that only some invocations use: pydantic and
the schemas, the OpenAPI document, Jinja2 and the page templates, Markdown come with the first
invocation that needs them. Code that never runs on Lambda is not imported at all. The times
themselves are printed by `make bench` (tests/bench/test_cold_start.py).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Imported by the first invocation that needs them, never by `import app`.
ON_FIRST_USE = ("pydantic", "pydantic_core", "jinja2", "markdown", "nh3", "chalicelib.schemas.")
NEVER_ON_LAMBDA = ("moto", "pytest", "chalicelib.local", "tests")


def _modules_loaded_by(statement: str) -> list[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    env.update(STAGE="prod", AWS_DEFAULT_REGION="us-east-1")
    env.pop("AWS_ENDPOINT_URL", None)
    answer = subprocess.run(
        [
            sys.executable,
            "-c",
            f"{statement}; import json, sys; print(json.dumps(list(sys.modules)))",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(answer.stdout)


def _matching(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(
        name
        for name in modules
        for prefix in prefixes
        if name == prefix or name.startswith(prefix if prefix.endswith(".") else prefix + ".")
    )


def test_importing_app_builds_no_schemas_templates_or_openapi_document():
    assert _matching(_modules_loaded_by("import app"), ON_FIRST_USE) == []


def test_importing_app_pulls_no_test_or_local_stack_code():
    assert _matching(_modules_loaded_by("import app"), NEVER_ON_LAMBDA) == []


def test_a_schema_is_imported_by_its_first_use():
    loaded = _modules_loaded_by("import app; from chalicelib import schemas; schemas.PageOut")
    assert "chalicelib.schemas.pages" in loaded
    assert "jinja2" not in loaded


def test_every_schema_a_route_names_exists():
    from app import app  # noqa: F401  (registers the routes)
    from chalicelib import schemas
    from chalicelib.http.routing import OPERATIONS

    named = {name for op in OPERATIONS for name in (op.body, op.response, op.query) if name}
    assert named and all(hasattr(schemas, name) for name in named)
