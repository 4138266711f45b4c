"""The local stack's other processes (the emulator, the event functions), seen from both sides.

The stack's own process starts each one (`ChildProcess`) and waits for its one line on
standard output, which says it is ready. The child (`serve_until_stopped`) lives only as long
as the stack's process: it dies with it however it stops (SIGKILL included), ignores the
terminal's Ctrl-C (which reaches the whole group; the stack's process ends its children) and
leaves at SIGTERM.
"""

import ctypes
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from chalicelib.local import header_parsing, heap, logs

# Loading a large data directory takes a while; this only catches a child that hangs.
START_TIMEOUT_SECONDS = 600
_PROJECT = Path(__file__).resolve().parents[2]


class ChildProcess:
    """`python -m MODULE ARGUMENTS...`, started by `launch` and ready once `ready` returns;
    one that `waits` does its imports and then waits for `go` to begin its work."""

    def __init__(self, module: str, arguments: list[str], waits: bool = False):
        self.module = module
        self.arguments = arguments
        self.waits = waits
        self.process: subprocess.Popen | None = None

    def launch(self) -> "ChildProcess":
        self.process = subprocess.Popen(
            [sys.executable, "-m", self.module, *self.arguments],
            cwd=_PROJECT,
            stdin=subprocess.PIPE if self.waits else None,
            stdout=subprocess.PIPE,
            text=True,
        )
        return self

    def go(self) -> None:
        self.process.stdin.write("go\n")
        self.process.stdin.flush()

    def checked(self) -> None:
        """Wait for its line saying that its data was checked (`say_checked`), before it
        listens on anything; raises, quoting its line, when it refused to start."""
        self._line(CHECKED)

    def ready(self) -> str:
        """Wait for its ready line; the line's last word."""
        return self._line(READY).split()[-1]

    def _line(self, expected: str) -> str:
        line = _read_line(self.process.stdout.fileno(), START_TIMEOUT_SECONDS)
        if not line.startswith(expected):
            self.process.kill()
            raise RuntimeError(f"{self.module} did not start: {line.strip() or 'no answer'}")
        return line

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()  # what it acknowledged is saved already; the rest comes back


def _read_line(descriptor: int, timeout: float) -> str:
    """One line of a child's output, read a byte at a time: a buffered read could take its
    next line too, and a wait on the pipe would then not see it ("" if none came in time)."""
    deadline = time.monotonic() + timeout
    line = bytearray()
    while not line.endswith(b"\n"):
        answered, _, _ = select.select([descriptor], [], [], max(0, deadline - time.monotonic()))
        byte = os.read(descriptor, 1) if answered else b""
        if not byte:
            break
        line += byte
    return line.decode(errors="replace")


class ForkedChild(ChildProcess):
    """`serve()` in a fork of the stack's process, which has imported what it runs: the
    child starts at no cost of its own (importing the app again took 0.6 s of CPU at every
    start). Forked before the stack's process starts any thread; named `name` in `ps`."""

    def __init__(self, name: str, serve: Callable[[], None]):
        super().__init__(name, [], waits=True)
        self.serve = serve

    def launch(self) -> "ForkedChild":
        go_read, go_write = os.pipe()
        ready_read, ready_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: its standard input and output are the two pipes
            try:
                os.dup2(go_read, 0)
                os.dup2(ready_write, 1)
                for descriptor in (go_read, go_write, ready_read, ready_write):
                    os.close(descriptor)
                sys.stdin = open(0, closefd=False)
                sys.stdout = open(1, "w", closefd=False)
                _name_process(self.module)
                self.serve()
            finally:
                os._exit(1)
        os.close(go_read)
        os.close(ready_write)
        self.process = _Fork(pid, os.fdopen(go_write, "w"), os.fdopen(ready_read))
        return self


class _Fork:
    """The little of `subprocess.Popen` that `ChildProcess` uses, for a forked child."""

    def __init__(self, pid: int, stdin, stdout):
        self.pid, self.stdin, self.stdout = pid, stdin, stdout
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])


READY = "ready:"
CHECKED = "checked:"


# The stack's processes are started side by side: the emulator, which takes longest, while
# the stack's process imports the app (then forks the event functions, `workers.forked`).
# Named here, apart from their code, so that the stack's process starts one without importing
# what it runs.
def emulator(port: int, data_dir: Path) -> ChildProcess:
    return ChildProcess("chalicelib.local.emulator", [str(port), str(data_dir)])


def front(port: int, api_port: int, site_dir: Path) -> ChildProcess:
    return ChildProcess("chalicelib.local.site_server", [str(port), str(api_port), str(site_dir)])


def serve_until_stopped(start: Callable[[threading.Event], str]) -> None:
    """The child's side: `start(stopped)` does its work in threads and returns a word for the
    ready line; then this waits until the stack stops."""
    _die_with_parent()
    logs.configure()
    header_parsing.install()
    stopped = threading.Event()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda signum, frame: stopped.set())
    said = start(stopped)
    heap.settle_long_lived(stopped)
    print(f"{READY} {said}", flush=True)
    sys.stdout = open(os.devnull, "w")  # nobody reads the pipe any more
    stopped.wait()
    os._exit(0)


def say_checked() -> None:
    """The child's side of `ChildProcess.checked`."""
    print(f"{CHECKED} data", flush=True)


def wait_for_go() -> None:
    """The child's side of `ChildProcess.go`; a stack that ended before it ends this too."""
    if not sys.stdin.readline():
        os._exit(0)


def _name_process(name: str) -> None:
    """The name `ps` shows for this process (Linux: its `comm`, 15 bytes at most)."""
    if sys.platform.startswith("linux"):
        pr_set_name = 15
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_name, name.encode()[:15], 0, 0, 0)


def _die_with_parent() -> None:
    """Be killed when the stack's process ends, however it ends."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)

    # Elsewhere (and should the parent be gone already), watch it.
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
