"""A small HTTP server that plays a Statuspage-compatible page's `summary.json` (for
third-party components): it answers what the test sets, and counts the requests."""

import json
from http.server import BaseHTTPRequestHandler

from tests.loopback import LoopbackServer


class SummarySource(LoopbackServer):
    def __init__(self, statuses: dict[str, str] | None = None):
        self.statuses = dict(statuses or {})
        self.status = 200
        self.raw: bytes | None = None  # sent as is instead of the summary
        self.redirect_to: str | None = None
        self.requests = 0
        self.requested: list[tuple[str, dict]] = []  # each request's path and headers
        source = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                source.requests += 1
                source.requested.append((self.path, dict(self.headers)))
                status, headers, body = source.respond(self.path)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        super().__init__(Handler)

    def respond(self, path: str) -> tuple[int, dict, bytes]:
        """The status, headers and body of the answer to `GET path`."""
        body = self.raw if self.raw is not None else self.summary()
        if self.redirect_to:
            return 302, {"Location": self.redirect_to}, body
        return self.status, {"Content-Type": "application/json"}, body

    def summary(self) -> bytes:
        components = [
            {"id": component_id, "name": component_id, "status": status}
            for component_id, status in self.statuses.items()
        ]
        return json.dumps({"page": {"id": "vendor"}, "components": components}).encode()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v2/summary.json"
