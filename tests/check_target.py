"""A loopback HTTP server for built-in checks to call: its answer (status, body, delay) is
whatever the test sets at the moment, and it counts the requests it got."""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # A tick's checks connect at once: a backlog of 5 would drop SYNs (1 s retries).
    request_queue_size = 1024


class CheckTarget:
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

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/health"

    def answer(self, status: int, body: bytes | None = None) -> None:
        self.status = status
        if body is not None:
            self.body = body

    def __enter__(self) -> "CheckTarget":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
