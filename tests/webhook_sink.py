"""A small HTTP server that records the webhooks it receives (or refuses them)."""

import json
import time
from http.server import BaseHTTPRequestHandler

from tests.loopback import LoopbackServer


class WebhookSink(LoopbackServer):
    def __init__(self, status: int = 200, delay: float = 0):
        self.status = status
        self.delay = delay  # seconds before each answer: a slow endpoint
        self.received: list[dict] = []
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                sink.received.append(
                    {
                        "path": self.path,
                        "headers": dict(self.headers),
                        "raw": raw,
                        "json": json.loads(raw),
                    }
                )
                time.sleep(sink.delay)
                self.send_response(sink.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        super().__init__(Handler, backlog=128)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"
