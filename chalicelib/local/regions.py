"""`make run-regions`: the local stack as two regions, `a` (the primary) and `b`, and one public
address in front of them standing for CloudFront and Route 53.

Each region is `make run`'s stack as it is (`python -m chalicelib.local`: its emulator,
journal, app, event functions and site folder), with settings of its own: its front on
`PORT_A` or `PORT_B` (its `url`, answering the API as the edge does), its emulator on
`MOTO_PORT` or `MOTO_PORT_B`, its data in `DATA_DIR/a` or `DATA_DIR/b`, and the other region's
emulator to replicate its tables to (`replication.py`). Each runs in a process group of its
own, so `make admin ARGS="region --fail a"` stops every process of it at once (SIGSTOP).

This process serves `PORT`: published files from the serving region's site folder (a path it
has not published yet from the other's, as a CDN's origin group would), everything else
forwarded to the serving region, and `GET /_local/regions`. It checks each region's health
every `FAILOVER_SECONDS / 5` seconds (at most every second); after two failed checks in a row
the primary is `failed` and the other region serves; the primary serves again once it passes
two checks in a row and the other region has delivered it every write (lag 0).
"""

import json
import logging
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from chalicelib.environment import DEFAULT_MOTO_PORT
from chalicelib.local import logs, region_state
from chalicelib.local.replication import LAG_PATH
from chalicelib.local.site_files import SiteFiles
from chalicelib.local.site_server import Front, listen, serve_in_thread

log = logging.getLogger(__name__)

PRIMARY = "a"
NAMES = ("a", "b")
REGIONS_PATH = "/_local/regions"
# The route a health check asks of a region: its front, its app and its emulator all answer
# it, and it writes nothing (on AWS the checks ask `GET /v1/health`, which this branch does not
# have).
HEALTH_PATH = "/_local/outbox"
FAILED_CHECKS = 2
PASSED_CHECKS = 2
READY = "Status page API ready on"


def _setting(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


class Region:
    def __init__(self, name: str, port: int, moto_port: int, data_dir: Path):
        self.name = name
        self.port = port
        self.moto_port = moto_port
        self.data_dir = data_dir
        self.site_dir = data_dir / "site"
        self.site = SiteFiles(self.site_dir)
        self.process: subprocess.Popen | None = None
        self.started = threading.Event()
        self.state = "up"
        self.failures = 0
        self.passes = 0
        self.lag_ms = 0
        self.public_url = self.url

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def launch(self, environment: dict[str, str]) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "chalicelib.local"],
            cwd=Path(__file__).resolve().parents[2],
            env=environment,
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=_own_group_dying_with_parent,
        )
        threading.Thread(target=self._relay, name=f"region-{self.name}", daemon=True).start()

    def _relay(self) -> None:
        """The region's output, each line marked with its name; `started` at its ready line."""
        for line in self.process.stdout:
            started = READY in line
            # The console's address it prints is the public one, as its links are; and only
            # the supervisor's line says the stack is ready (a script waits for that one).
            line = line.replace(f"{self.url}/manage", f"{self.public_url}/manage")
            line = line.replace(READY, "Region ready on")
            print(f"[{self.name}] {line}", end="", flush=True)
            if started:
                self.started.set()

    def described(self) -> dict:
        return {
            "name": self.name,
            "url": self.url,
            "state": self.state,
            "replication_lag_ms": self.lag_ms,
        }


def _own_group_dying_with_parent() -> None:
    os.setsid()  # a group of its own: SIGSTOP reaches every process of the region at once
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Regions:
    """Which region serves, from the health checks."""

    def __init__(self, regions: list[Region], failover_seconds: float):
        self.regions = {region.name: region for region in regions}
        self.serving = PRIMARY
        # Two checks fail within `FAILOVER_SECONDS` (each takes at most `interval` to fail).
        self.interval = max(0.1, min(1.0, failover_seconds / 5))
        self.switched = threading.Event()
        self.pool = ThreadPoolExecutor(len(regions), thread_name_prefix="health")
        self.pool_lags = ThreadPoolExecutor(len(regions), thread_name_prefix="lag")

    def other(self, name: str) -> Region:
        return next(region for region in self.regions.values() if region.name != name)

    def described(self) -> dict:
        return {
            "primary": PRIMARY,
            "serving": self.serving,
            "regions": [region.described() for region in self.regions.values()],
        }

    def check_forever(self, stopped: threading.Event) -> None:
        while not stopped.wait(self.interval):
            self.check()

    def check(self) -> None:
        # Each region's check and its replication lag asked side by side: a stopped region
        # takes the whole timeout to fail, and in turn the two took a cycle of 3 s, not 1.
        answered = list(self.pool.map(self._ask, self.regions.values()))
        for region, (healthy, lag) in zip(self.regions.values(), answered, strict=True):
            if healthy:
                region.failures, region.passes = 0, region.passes + 1
                if region.passes >= PASSED_CHECKS:
                    region.state = "up"
            else:
                region.failures, region.passes = region.failures + 1, 0
                if region.failures >= FAILED_CHECKS:
                    region.state = "failed"
            if lag is not None:
                region.lag_ms = lag["lag_ms"]
        self._choose()

    def _ask(self, region: Region) -> tuple[bool, dict | None]:
        """Its health check, and how far behind its copy is: the age of the oldest write the
        other region has not delivered to it yet (None while that one does not answer: the
        last value seen stays)."""
        lag = self.pool_lags.submit(_replication, self.other(region.name).moto_port, self.interval)
        return _answers(region.url + HEALTH_PATH, self.interval), lag.result()

    def _choose(self) -> None:
        serving, primary = self.regions[self.serving], self.regions[PRIMARY]
        chosen = self.serving
        if serving.state == "failed" and self.other(serving.name).state == "up":
            chosen = self.other(serving.name).name
        elif chosen != PRIMARY and primary.state == "up" and primary.lag_ms == 0:
            chosen = PRIMARY  # healthy and caught up
        if chosen != self.serving:
            log.warning("region %s serves from now on", chosen)
            print(f"Region {chosen} serves from now on.", flush=True)
            self.serving = chosen
            self.switched.set()


def _answers(url: str, timeout: float) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status == 200
    except OSError:
        return False


def _replication(moto_port: int, timeout: float) -> dict | None:
    try:
        with urllib.request.urlopen(
            f"http://127.0.0.1:{moto_port}{LAG_PATH}", timeout=timeout
        ) as a:
            return json.loads(a.read())
    except (OSError, ValueError):
        return None


class RegionsFront(Front):
    """The site server's front, on the serving region: its files, then the other's; everything
    else forwarded to the serving region's own front."""

    def __init__(self, regions: Regions):
        self.regions = regions
        serving = regions.regions[regions.serving]
        super().__init__(serving.site, serving.port)

    @property
    def api_port(self) -> int:
        return self.regions.regions[self.regions.serving].port

    @api_port.setter
    def api_port(self, port: int) -> None:
        pass  # always the serving region's

    def answer(self, method: str, target: str, wanted: dict[str, str]):
        if target.partition("?")[0] == REGIONS_PATH and method in ("GET", "HEAD"):
            return _json_answer(self.regions.described(), method == "HEAD")
        serving = self.regions.regions[self.regions.serving]
        for region in (serving, self.regions.other(serving.name)):
            self.site = region.site
            found = super().answer(method, target, wanted)
            if found is not None:
                return found
        return None


def _json_answer(body: dict, head_only: bool) -> bytes:
    payload = json.dumps(body).encode()
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
        f"Content-Length: {len(payload)}\r\n\r\n"
    ).encode()
    return head if head_only else head + payload


def _environment(
    region: Region, peer: Region, tick_seconds: float, shared: dict[str, str]
) -> dict[str, str]:
    environment = dict(os.environ)
    environment.pop("SITE_DIR", None)
    environment.update(shared)
    environment.update(
        PORT=str(region.port),
        MOTO_PORT=str(region.moto_port),
        DATA_DIR=str(region.data_dir),
        REPLICATE_TO=f"http://127.0.0.1:{peer.moto_port}",
        LOCAL_BOOTSTRAP="1" if region.name == PRIMARY else "0",
        # Half a tick apart: see `__main__.py`.
        SCHEDULE_TICK_OFFSET_SECONDS="0" if region.name == PRIMARY else str(tick_seconds / 2),
    )
    return environment


def _signing_secret(data_dir: Path) -> str:
    kept = data_dir / "signing-secret"
    if not kept.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(kept, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as written:
            written.write(secrets.token_hex(32))
    return kept.read_text().strip()


def _state(regions: Regions) -> dict:
    return {
        "pid": os.getpid(),
        "primary": PRIMARY,
        "serving": regions.serving,
        "regions": [
            {
                "name": region.name,
                "url": region.url,
                "moto_port": region.moto_port,
                "data_dir": str(region.data_dir),
                "site_dir": str(region.site_dir),
                "pgid": region.process.pid,
            }
            for region in regions.regions.values()
        ],
    }


def main() -> int:
    logs.configure()
    port = _setting("PORT", 8000)
    moto_port = _setting("MOTO_PORT", DEFAULT_MOTO_PORT)
    data_dir = Path(os.environ.get("DATA_DIR", ".data")).resolve()
    tick_seconds = float(os.environ.get("SCHEDULE_TICK_SECONDS", "60"))
    failover_seconds = float(os.environ.get("FAILOVER_SECONDS", "10"))
    a = Region("a", _setting("PORT_A", port + 1), moto_port, data_dir / "a")
    b = Region(
        "b", _setting("PORT_B", port + 2), _setting("MOTO_PORT_B", moto_port + 1), data_dir / "b"
    )
    regions = Regions([a, b], failover_seconds)
    listening = listen(port)  # before the regions start: a port in use stops this at once
    # What both regions share, as the deployed regions do: the public address their links
    # name (not each region's own), and the signing secret (Secrets Manager's replica
    # regions on AWS): made once, on the first start, unless `SIGNING_SECRET` is set. Each
    # region making its own on first use would sign sessions and links the other refuses.
    shared = {
        "PUBLIC_BASE_URL": os.environ.get("PUBLIC_BASE_URL", f"http://127.0.0.1:{port}"),
        "SIGNING_SECRET": os.environ.get("SIGNING_SECRET") or _signing_secret(data_dir),
    }
    for region, peer in ((a, b), (b, a)):
        region.public_url = f"http://127.0.0.1:{port}"
        region.launch(_environment(region, peer, tick_seconds, shared))

    stopped = threading.Event()
    signal.signal(signal.SIGINT, lambda signum, frame: stopped.set())
    signal.signal(signal.SIGTERM, lambda signum, frame: stopped.set())
    for region in (a, b):
        while not region.started.wait(0.5):
            if stopped.is_set() or region.process.poll() is not None:
                print(f"error: region {region.name} did not start", file=sys.stderr, flush=True)
                _stop([a, b])
                return 1

    serve_in_thread(RegionsFront(regions), listening)
    region_state.write(_state(regions))
    threading.Thread(
        target=regions.check_forever, args=(stopped,), name="health", daemon=True
    ).start()
    threading.Thread(
        target=_after_switches, args=(regions, stopped), name="switches", daemon=True
    ).start()
    print(
        f"{READY} http://127.0.0.1:{port} (regions: a on {a.url}, b on {b.url}; "
        f"{REGIONS_PATH} says which serves)",
        flush=True,
    )
    stopped.wait()
    print("Stopping...", flush=True)
    _stop([a, b])
    region_state.path().unlink(missing_ok=True)
    return 0


def _after_switches(regions: Regions, stopped: threading.Event) -> None:
    """At each switch: the state file names the new serving region, and that region publishes
    every page, as its files lack what the other region published meanwhile."""
    while not stopped.is_set():
        if not regions.switched.wait(1.0):
            continue
        regions.switched.clear()
        region_state.write(_state(regions))
        subprocess.run(
            [sys.executable, "-m", "chalicelib.admin", "publish-all", "--every"],
            cwd=Path(__file__).resolve().parents[2],
            stdout=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )


def _stop(regions: list[Region]) -> None:
    for region in regions:
        if region.process is not None and region.process.poll() is None:
            os.killpg(region.process.pid, signal.SIGCONT)  # a failed region stops too
            region.process.send_signal(signal.SIGTERM)
    for region in regions:
        if region.process is not None:
            try:
                region.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(region.process.pid, signal.SIGKILL)


# `make admin ARGS="region --fail a"` and `--restore a`.


def fail(name: str) -> dict:
    region = _running_region(name)
    os.killpg(region["pgid"], signal.SIGSTOP)
    return {"region": name, "state": "stopped"}


def restore(name: str) -> dict:
    """Resume the region's emulator first, until the other region has delivered it every
    write made meanwhile, then the rest: its event functions then find the claims the other
    region took, and send nothing again (docs/operations.md)."""
    state = region_state.read()
    region = _running_region(name)
    for pid in _group_members(region["pgid"]):
        if "chalicelib.local.emulator" in _command_line(pid):
            os.kill(pid, signal.SIGCONT)
    peer = next(each for each in state["regions"] if each["name"] != name)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        lag = _replication(peer["moto_port"], 1.0)
        if lag is None or lag["backlog"] == 0:
            break
        time.sleep(0.05)
    os.killpg(region["pgid"], signal.SIGCONT)
    return {"region": name, "state": "resumed"}


def _running_region(name: str) -> dict:
    state = region_state.read()
    if state is None:
        raise SystemExit("error: no make run-regions runs on this DATA_DIR")
    return region_state.region(state, name)


def _group_members(pgid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.getpgid(int(entry.name)) == pgid:
                    members.append(int(entry.name))
            except OSError:
                continue
    return members


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


if __name__ == "__main__":
    code = main()
    logging.shutdown()
    sys.stdout.flush()
    os._exit(code)
