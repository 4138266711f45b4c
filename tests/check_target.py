"""A loopback HTTP server for built-in checks to call: its answer (status, body, delay) is
whatever the test sets at the moment, and it counts the requests it got."""

import time
from http.server import BaseHTTPRequestHandler

from tests.loopback import LoopbackServer


class CheckTarget(LoopbackServer):
    def __init__(self, status: int = 200, body: bytes = b"all good", delay: float = 0):
        self.status = status
        self.body = body
        self.delay = delay
        self.requests: list[str] = []  # "METHOD path", in arrival order
        target = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the checks' pooled connections expect

            def _answer(self, with_body: bool) -> None:
                target.requests.append(f"{self.command} {self.path}")
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                time.sleep(target.delay)
                self.send_response(target.status)
                self.send_header("Content-Length", str(len(target.body)))
                self.end_headers()
                if with_body:
                    self.wfile.write(target.body)

            def do_GET(self):
                self._answer(True)

            def do_POST(self):
                self._answer(True)

            def do_HEAD(self):
                self._answer(False)

            def log_message(self, *args):
                pass

        super().__init__(Handler, backlog=1024)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/health"

    def answer(self, status: int, body: bytes | None = None) -> None:
        self.status = status
        if body is not None:
            self.body = body
