"""The real local stack in a subprocess, on free ports, for end-to-end tests."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import boto3
import requests

from chalicelib import config
from chalicelib.local import sent_messages

ROOT = Path(__file__).resolve().parents[2]
READY = "Status page API ready on"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(condition, timeout=30.0) -> bool:
    """Whether `condition()` came true within `timeout` seconds: looked at after 50 ms, then
    half as long again each time up to every 0.2 s (most conditions come true within a
    second, and a fixed 0.2 s overshot each by 0.1 s on average)."""
    deadline = time.monotonic() + timeout
    pause = 0.05
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(pause)
        pause = min(pause * 1.5, 0.2)
    return condition()


class LocalStack:
    # What `launch` runs: `make run`'s stack (`make run-regions`' in tests/e2e/regions_drill.py).
    module = "chalicelib.local"

    def __init__(self, data_dir: Path, log: Path | None = None, **environment: str):
        self.data_dir = data_dir
        self.log = log  # where every process's log lines (standard error) go; None: nowhere
        self.port = free_port()
        self.moto_port = free_port()
        self.environment = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("AWS_")
            and key not in ("STAGE", "RATE_LIMIT_PER_MINUTE", "PUBLIC_BASE_URL", "SITE_DIR")
        }
        self.environment.update(
            PORT=str(self.port),
            MOTO_PORT=str(self.moto_port),
            DATA_DIR=str(data_dir),
            RATE_LIMIT_PER_MINUTE="0",
        )
        self.environment.update(environment)
        self.process: subprocess.Popen | None = None
        self.output: list[str] = []
        self.clients: dict[str, object] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> "LocalStack":
        return self.launch().wait_ready(timeout)

    def launch(self) -> "LocalStack":
        """Start the stack's process and return at once, before it is ready."""
        self.output = []
        with self.log.open("a") if self.log else open(os.devnull, "w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", self.module],
                cwd=ROOT,
                env=self.environment,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                start_new_session=True,  # a group of its own, to stop as a supervisor does
            )
        return self

    def wait_ready(self, timeout: float = 60) -> "LocalStack":
        deadline = time.monotonic() + timeout
        for line in self.process.stdout:
            self.output.append(line)
            if READY in line:
                return self
            if time.monotonic() > deadline:
                break
        self.stop()
        logged = self.log.read_text() if self.log else ""
        raise RuntimeError("the local stack did not get ready:\n" + "".join(self.output) + logged)

    def logged(self) -> str:
        return self.log.read_text() if self.log else ""

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def child_pid(self, module: str) -> int:
        """The pid of the stack's child process running `chalicelib.local.{module}`
        (emulator, site_server) or forked as `module` (workers)."""
        listed = subprocess.run(
            # -ww: without a terminal ps cuts each line at 80 columns, which cut the
            # module's name off a long checkout path.
            ["ps", "-ww", "-o", "pid=,comm=,args=", "--ppid", str(self.process.pid)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for line in listed.splitlines():
            pid, name, arguments = line.split(maxsplit=2)
            if name == module or f"chalicelib.local.{module}" in arguments:
                return int(pid)
        raise AssertionError(f"no {module} process under the stack:\n{listed}")

    def emulator(self, service: str):
        """A client of the stack's emulator, as any AWS SDK reaches it (one per service)."""
        if service not in self.clients:
            self.clients[service] = boto3.client(
                service,
                endpoint_url=f"http://127.0.0.1:{self.moto_port}",
                region_name="us-east-1",
                aws_access_key_id="local",
                aws_secret_access_key="local",
            )
        return self.clients[service]

    def sent_counts(self, kind: str = "email") -> dict:
        """The emulator's count of the emails (or `sms`) sent to each address since it
        started, under `to`, and the wall-clock time of the last, under `last_at`."""
        answer = requests.get(
            f"http://127.0.0.1:{self.moto_port}{sent_messages.COUNTS_PATH}", timeout=30
        )
        return answer.json()[kind]

    def messages_in(self, queue: str) -> int:
        """How many messages the queue named `queue` holds: waiting, received or delayed."""
        return self._messages_at(self.emulator("sqs").get_queue_url(QueueName=queue)["QueueUrl"])

    def queues_idle(self, sqs=None) -> bool:
        """Whether no queue of the stack (dead letters aside; the emulator `sqs` is a client
        of, the stack's by default) holds a message: no work is left that could still send
        something."""
        sqs = sqs or self.emulator("sqs")
        urls = sqs.list_queues().get("QueueUrls", [])
        dead_letters = config.dead_letter_queue_name("")
        return not any(
            self._messages_at(url, sqs) for url in urls if not url.endswith(dead_letters)
        )

    def _messages_at(self, url: str, sqs=None) -> int:
        counts = (sqs or self.emulator("sqs")).get_queue_attributes(
            QueueUrl=url,
            AttributeNames=[
                "ApproximateNumberOfMessages",
                "ApproximateNumberOfMessagesNotVisible",
                "ApproximateNumberOfMessagesDelayed",
            ],
        )["Attributes"]
        return sum(int(count) for count in counts.values())

    def admin(self, *arguments: str) -> dict:
        done = subprocess.run(
            [sys.executable, "-m", "chalicelib.admin", *arguments],
            cwd=ROOT,
            env=self.environment,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return json.loads(done.stdout)

    def get(self, path: str, api_key: str | None = None, **kwargs) -> requests.Response:
        headers = {"Authorization": f"OAuth {api_key}"} if api_key else {}
        headers.update(kwargs.pop("headers", None) or {})
        return requests.get(self.url + path, headers=headers, timeout=30, **kwargs)

    def send(self, method: str, path: str, api_key: str, body: dict) -> requests.Response:
        return requests.request(
            method,
            self.url + path,
            json=body,
            headers={"Authorization": f"OAuth {api_key}"},
            timeout=30,
        )
