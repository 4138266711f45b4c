"""The fan-out end to end on the local stack, with no stand-ins: webhook subscribers made
through the API, one incident created through the API, every delivery timed and counted at a
loopback sink in a process of its own; then a bare concurrent POST loop to the same sink, with
the delivery lanes' concurrency, in the same run.

    python -m tests.bench.fanout_end_to_end SUBSCRIBERS [--profile DIR]

With `--profile`, py-spy samples the stack's three processes (the API, the event functions,
the emulator) while the deliveries run, and a summary of where their time went is printed.
`test_fanout_bench` runs it for `make bench`.
"""

import argparse
import http.client
import json
import multiprocessing
import os
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import requests

from chalicelib.local import events
from chalicelib.notify import webhook
from tests.e2e.stack import LocalStack

# Sends to one host in flight at once: each delivery invocation's lane for the host, times
# the invocations that run at once.
DELIVERY_CONCURRENCY = webhook.PER_HOST * events.INSTANCES_PER_QUEUE
CREATING_AT_ONCE = 8
BARE_POSTS = 4_000


def _serve(port, counts, first, last):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the senders' pools use it

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            now = time.time()
            number = int(self.path.rsplit("/", 1)[-1])
            with counts.get_lock():
                counts[number] += 1
                if not first.value:
                    first.value = now
                last.value = now
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    ThreadingHTTPServer.request_queue_size = 1024
    ThreadingHTTPServer.daemon_threads = True
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port.value = server.server_address[1]
    server.serve_forever()


class CountingSink:
    """Counts POSTs per subscriber (`/hook/<number>`: a second one is a duplicate) and notes
    the wall-clock time of the first and the last; it runs in its own process, so it does not
    share an interpreter lock with anything it measures."""

    def __init__(self, subscribers: int):
        self.port = multiprocessing.Value("i", 0)
        self.counts = multiprocessing.Array("i", subscribers + 1)
        self.first = multiprocessing.Value("d", 0.0)
        self.last = multiprocessing.Value("d", 0.0)
        self.process = multiprocessing.Process(
            target=_serve, args=(self.port, self.counts, self.first, self.last), daemon=True
        )

    def __enter__(self) -> "CountingSink":
        self.process.start()
        while not self.port.value:
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.process.terminate()

    def url(self, number: int) -> str:
        return f"http://127.0.0.1:{self.port.value}/hook/{number}"

    def reached(self) -> int:
        return sum(1 for count in self.counts[1:] if count)

    def duplicates(self) -> int:
        return sum(count - 1 for count in self.counts[1:] if count > 1)

    def reset(self) -> None:
        with self.counts.get_lock():
            for number in range(len(self.counts)):
                self.counts[number] = 0
            self.first.value = self.last.value = 0.0


def bare_concurrent_loop(url: str, posts: int, concurrency: int, body: bytes) -> float:
    """POSTs a second to `url` from `concurrency` keep-alive connections at once."""
    parts = urlsplit(url)

    def loop(count: int) -> None:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        for _ in range(count):
            connection.request(
                "POST", parts.path, body=body, headers={"Content-Type": "application/json"}
            )
            connection.getresponse().read()
        connection.close()

    started = time.perf_counter()
    threads = [
        threading.Thread(target=loop, args=(posts // concurrency,)) for _ in range(concurrency)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return (posts // concurrency * concurrency) / (time.perf_counter() - started)


@dataclass
class FanOutFigures:
    subscribers: int
    delivered: int
    duplicates: int
    first: float  # seconds after the create's answer
    last: float
    bare_rate: float

    @property
    def rate(self) -> float:
        return self.delivered / max(self.last, 1e-9)

    def lines(self) -> list[str]:
        return [
            f"{self.delivered} of {self.subscribers} webhook subscribers reached, "
            f"{self.duplicates} twice",
            f"first delivery {self.first:.2f} s after the create's answer (target <= 1 s)",
            f"last delivery {self.last:.2f} s after it (target <= 30 s), {self.rate:.0f}/s",
            f"bare concurrent POST loop ({DELIVERY_CONCURRENCY} connections), same sink, same "
            f"run: {self.bare_rate:.0f}/s; deliveries reach {self.rate / self.bare_rate:.2f} of it",
        ]


def make_subscribers(
    stack: LocalStack, page: dict, count: int, subscriber: Callable[[int], dict]
) -> None:
    """`count` subscribers of the page `admin bootstrap` made, through the API,
    `CREATING_AT_ONCE` at a time: `subscriber(n)` is the n-th's body (from 1). Says how long
    it took."""
    key, page_id = page["api_key"], page["page_id"]
    started = time.perf_counter()
    session = threading.local()

    def create(number: int) -> None:
        if not hasattr(session, "value"):
            session.value = requests.Session()
        answer = session.value.post(
            f"{stack.url}/v1/pages/{page_id}/subscribers",
            json={"subscriber": subscriber(number)},
            headers={"Authorization": f"OAuth {key}"},
            timeout=60,
        )
        assert answer.status_code == 201, answer.text

    with ThreadPoolExecutor(CREATING_AT_ONCE) as pool:
        list(pool.map(create, range(1, count + 1)))
    print(
        f"made {count} subscribers through the API in {time.perf_counter() - started:.1f} s",
        flush=True,
    )


def create_incident(stack: LocalStack, key: str, page_id: str) -> tuple[dict, float]:
    """The bench's incident, through the API: its body and the wall-clock time of the answer."""
    answer = stack.send(
        "POST",
        f"/v1/pages/{page_id}/incidents",
        key,
        {"incident": {"name": "Bench", "body": "Everything is on fire"}},
    )
    answered = time.time()
    assert answer.status_code == 201, answer.text
    return answer.json(), answered


class Profiler:
    """py-spy sampling each of the stack's processes into collapsed stacks."""

    def __init__(self, stack: LocalStack, directory: Path):
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.pids = {
            "api": stack.process.pid,
            "workers": stack.child_pid("workers"),
            "emulator": stack.child_pid("emulator"),
        }
        self.samplers: list[subprocess.Popen] = []

    def __enter__(self) -> "Profiler":
        for name, pid in self.pids.items():
            self.samplers.append(
                subprocess.Popen(
                    ["py-spy", "record", "--pid", str(pid), "--rate", "50", "--format", "raw"]
                    + ["--threads", "--output", str(self.directory / f"{name}.txt")],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        time.sleep(1)  # attached before the create
        return self

    def __exit__(self, *exc) -> None:
        for sampler in self.samplers:
            sampler.send_signal(2)
        for sampler in self.samplers:
            sampler.wait(timeout=60)


def run(subscribers: int, profile: Path | None = None) -> FanOutFigures:
    os.environ["ALLOW_PRIVATE_TARGETS"] = "1"
    with tempfile.TemporaryDirectory() as data, CountingSink(subscribers) as sink:
        stack = LocalStack(Path(data), ALLOW_PRIVATE_TARGETS="1").start()
        try:
            page = stack.admin("bootstrap")
            key, page_id = page["api_key"], page["page_id"]
            make_subscribers(
                stack,
                page,
                subscribers,
                lambda n: {"endpoint": sink.url(n), "email": "o@example.com"},
            )
            profiler = Profiler(stack, profile) if profile else None
            if profiler:
                profiler.__enter__()
            incident, answered = create_incident(stack, key, page_id)
            deadline = time.monotonic() + 300
            while sink.reached() < subscribers and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(2)  # anything sent twice would arrive now
            if profiler:
                profiler.__exit__(None, None, None)
            figures = FanOutFigures(
                subscribers,
                sink.reached(),
                sink.duplicates(),
                sink.first.value - answered,
                sink.last.value - answered,
                0.0,
            )
            sink.reset()
            body = json.dumps({"meta": {}, "incident": incident}).encode()
            figures.bare_rate = bare_concurrent_loop(
                sink.url(1), BARE_POSTS, DELIVERY_CONCURRENCY, body
            )
        finally:
            stack.stop()
    return figures


def summarize(directory: Path, top: int = 25) -> str:
    """Per process: the share of busy samples under each of our and moto's functions."""
    lines = []
    for path in sorted(directory.glob("*.txt")):
        inclusive: Counter = Counter()
        busy = 0
        for row in path.read_text().splitlines():
            stack, _, count = row.rpartition(" ")
            if not count.isdigit():
                continue
            frames = stack.split(";")
            if any(
                idle in frames[-1]
                for idle in ("wait (threading", "select (", "accept (", "_wait_for_tstate_lock")
            ):
                continue
            busy += int(count)
            for frame in dict.fromkeys(
                frame.split(" (")[0] + " " + _where(frame) for frame in frames
            ):
                inclusive[frame] += int(count)
        lines.append(f"== {path.stem}: {busy} busy samples")
        for frame, count in inclusive.most_common(top):
            lines.append(f"  {100 * count / max(busy, 1):5.1f}%  {frame}")
    return "\n".join(lines)


def _where(frame: str) -> str:
    place = frame.partition(" (")[2].rstrip(")")
    return place.split("site-packages/")[-1].split("/main/")[-1].rsplit(":", 1)[0]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("subscribers", type=int)
    parser.add_argument("--profile", type=Path)
    arguments = parser.parse_args()
    result = run(arguments.subscribers, arguments.profile)
    print("\n".join(result.lines()))
    if arguments.profile:
        print(summarize(arguments.profile))
