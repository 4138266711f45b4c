"""A real Alertmanager (Debian's `prometheus-alertmanager`, which `make test` installs) for the
end-to-end tests of the alert integrations, configured as the README tells users to (issue 45).

It listens on a free loopback port only, with clustering off (`--cluster.listen-address=`) and
its data in a directory of the test's own, so nothing of it leaves the machine.
"""

import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
import requests
import yaml

from tests.e2e.stack import ROOT, free_port, wait_for

BINARY = "prometheus-alertmanager"
# The README's example posts here; the tests put the integration's own URL in its place.
EXAMPLE_URL = "https://status.example.com/v1/integrations/<token>/alerts"
FAILED = "Notify for alerts failed"


def skip_without_alertmanager() -> None:
    if shutil.which(BINARY) is None:
        pytest.skip(
            "Debian's prometheus-alertmanager is not installed (`make test` installs it)",
            allow_module_level=True,
        )


def readme_configuration() -> dict:
    """The README's `alertmanager.yml`, as a user pastes it."""
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    (block,) = [block for block in blocks if "alertmanager.yml" in block.splitlines()[0]]
    return yaml.safe_load(block)


class Alertmanager:
    """A running Alertmanager: its API v2 and what it logged."""

    def __init__(self, url: str, log: Path):
        self.url = url
        self.log = log

    def post_alerts(self, alerts: list[dict]) -> None:
        """Alerts as Prometheus posts them (`POST /api/v2/alerts`)."""
        answer = requests.post(f"{self.url}/api/v2/alerts", json=alerts, timeout=10)
        assert answer.status_code == 200, answer.text

    def groups(self) -> list[dict]:
        """Its alert groups (`GET /api/v2/alerts/groups`), each with its alerts."""
        answer = requests.get(f"{self.url}/api/v2/alerts/groups", timeout=10)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def logged(self) -> str:
        return self.log.read_text()

    def ready(self) -> bool:
        try:
            return requests.get(f"{self.url}/-/ready", timeout=2).status_code == 200
        except requests.ConnectionError:
            return False


@contextmanager
def running(directory: Path, configuration: dict) -> Iterator[Alertmanager]:
    """Alertmanager with `configuration`, on a free loopback port, until the block ends."""
    config_file = directory / "alertmanager.yml"
    config_file.write_text(yaml.safe_dump(configuration))
    log = directory / "alertmanager.log"
    port = free_port()
    with log.open("w") as output:
        process = subprocess.Popen(
            [
                BINARY,
                f"--config.file={config_file}",
                f"--storage.path={directory / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}",
                "--cluster.listen-address=",
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    manager = Alertmanager(f"http://127.0.0.1:{port}", log)
    try:
        assert wait_for(manager.ready, timeout=20), manager.logged()
        yield manager
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
