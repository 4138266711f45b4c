"""A small HTTP server that records the webhooks it receives (or refuses them)."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Server(ThreadingHTTPServer):
    # Concurrent deliveries connect at once: a backlog of 5 would drop SYNs (1 s retries).
    request_queue_size = 128


class WebhookSink:
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

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def __enter__(self) -> "WebhookSink":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
