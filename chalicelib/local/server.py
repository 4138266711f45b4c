"""The Chalice app over HTTP, served as `chalice local` serves it, with the contract's answers
where Chalice's gateway would give its own.

Chalice's local gateway answers a path no route matches with API Gateway's 403 and, when the
request carries an `Authorization` header, quotes that header (the caller's API key) in the
body. Here such a path is the contract's 404, as the gateway responses in infra/ make it on
AWS. The access log masks every secret of a request line (`logs.masked_text`): an API key in
the query however its name is encoded, a sign-in link's or a subscription link's token.

Bodies are read as API Gateway reads them before the app sees anything: whole or not at all.
A body sent in chunks is reassembled; one that ends before its `Content-Length` (the client
gave up, or stalled past `BODY_TIMEOUT_SECONDS`) is a 400 and closes the connection, so a
partial body is never handed to the app, and nothing of it is taken for the next request.

One page is the local stack's own, not the app's: the outbox (`/_local/outbox`,
`outbox_page.py`), the emails and text messages the stack sent.

While the stack starts, until the emulator has loaded its data (`LocalDevServer.server.opened`
is set), every request gets `503` with `Retry-After: 1` and `{"error": "Service starting"}`:
the app would read empty tables, and call a valid key invalid or a page missing.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler

from chalice import Response
from chalice.config import Config
from chalice.local import (
    ChaliceRequestHandler,
    CustomLocalChalice,
    LocalChalice,
    LocalDevServer,
    LocalGateway,
    LocalGatewayException,
    ThreadedHTTPServer,
)

from chalicelib.http import errors, routing
from chalicelib.local import logs, outbox_page

STARTING = "Service starting"
# API Gateway's own bound; the app refuses far less (chalicelib/http/decode.py).
MAX_TRANSPORT_BYTES = 10 * 1024 * 1024
BODY_TIMEOUT_SECONDS = 5


class _NoSuchRoute(LocalGatewayException):
    CODE = 404

    @classmethod
    def of(cls, answer: Response) -> "_NoSuchRoute":
        body = answer.body
        if not isinstance(body, str | bytes):
            body = json.dumps(body)
        refusal = cls(answer.headers, body.encode() if isinstance(body, str) else body)
        refusal.CODE = answer.status_code
        return refusal


class _UnreadableBody(LocalGatewayException):
    def __init__(self, error: errors.ApiError):
        self.CODE = error.status
        body = json.dumps(error.body()).encode()
        super().__init__({"Content-Type": "application/json"}, body)


class _Gateway(LocalGateway):
    def _generate_lambda_event(self, method, path, headers, body):
        try:
            return super()._generate_lambda_event(method, path, headers, body)
        except ValueError:
            answer = routing.unrouted_answer(path.split("?", 1)[0])
            raise _NoSuchRoute.of(answer) from None


class _RequestHandler(ChaliceRequestHandler):
    # Chalice writes headers and body separately; without this a keep-alive client's delayed
    # ACK holds every response back by ~40 ms.
    disable_nagle_algorithm = True

    def __init__(self, request, client_address, server, app_object, config):
        self.local_gateway = _Gateway(app_object, config)
        BaseHTTPRequestHandler.__init__(self, request, client_address, server)

    def _generic_handle(self) -> None:
        try:
            self._body = self._read_body()
        except _UnreadableBody as refusal:
            self.close_connection = True
            self._send_error_response(refusal)
            return
        if not self.server.opened.is_set():
            body = json.dumps(errors.ApiError(503, STARTING).body()).encode()
            self._send_local(503, {"Content-Type": "application/json", "Retry-After": "1"}, body)
            return
        if outbox_page.serves(self.path):  # the local stack's own page, never the app's
            self._send_local(*outbox_page.answer(self.command, self.path, self.headers["Host"]))
            return
        super()._generic_handle()

    def _send_local(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    # The parent binds these to its own `_generic_handle`.
    do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = do_PATCH = do_OPTIONS = _generic_handle

    def _parse_payload(self):
        return dict(self.headers), self._body

    def _read_body(self) -> bytes | None:
        self.connection.settimeout(BODY_TIMEOUT_SECONDS)
        try:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                body = self._read_chunks()
            else:
                body = self._read_exactly(self._content_length())
        except (TimeoutError, OSError, ValueError):
            raise _UnreadableBody(errors.bad_request()) from None
        finally:
            self.connection.settimeout(self.timeout)
        return body or None

    def _content_length(self) -> int:
        given = self.headers.get("Content-Length", "0").strip()
        if not given.isdigit():
            raise ValueError("Content-Length is not a number")
        length = int(given)
        if length > MAX_TRANSPORT_BYTES:
            raise _UnreadableBody(errors.too_large(MAX_TRANSPORT_BYTES))
        return length

    def _read_exactly(self, length: int) -> bytes:
        body = self.rfile.read(length) if length else b""
        if len(body) < length:
            raise ValueError("the body ended before its Content-Length")
        return body

    def _read_chunks(self) -> bytes:
        body = bytearray()
        while True:
            size = int(self.rfile.readline(1024).split(b";")[0].strip(), 16)
            if size == 0:
                break
            if len(body) + size > MAX_TRANSPORT_BYTES:
                raise _UnreadableBody(errors.too_large(MAX_TRANSPORT_BYTES))
            body += self._read_exactly(size)
            if self.rfile.readline(3) not in (b"\r\n", b"\n"):
                raise ValueError("a chunk did not end where its size said")
        while self.rfile.readline(8192) not in (b"\r\n", b"\n", b""):
            pass  # trailer fields: nothing here reads them
        return bytes(body)

    def log_message(self, format, *args) -> None:
        # Every line: the access log's, and the errors' that quote a malformed request line.
        super().log_message("%s", logs.masked_text(format % args))


class _Server(ThreadedHTTPServer):
    # Many clients connecting at once (a load test, a page during an outage): the default
    # backlog of 5 drops connections.
    request_queue_size = 128


def start(app, host: str, port: int, opened: threading.Event | None = None) -> LocalDevServer:
    """The app served on a thread of its own; it answers 503 until `opened` is set (at once
    when none is given)."""
    if opened is None:
        opened = threading.Event()
        opened.set()
    config = Config.create(chalice_stage="local", app_name=app.app_name, chalice_app=app)
    if not isinstance(app, LocalChalice):
        # As `chalice.local.create_local_server` does, with our request handler.
        CustomLocalChalice.__bases__ = (LocalChalice, app.__class__)
        app.__class__ = CustomLocalChalice
    server = LocalDevServer(
        app, config, host, port, handler_cls=_RequestHandler, server_cls=_Server
    )
    server.server.opened = opened
    # Polled every 0.1 s for the stop's shutdown (the default 0.5 s was a quarter of a stop).
    serving = {"poll_interval": 0.1}
    threading.Thread(
        target=server.server.serve_forever, kwargs=serving, name="http", daemon=True
    ).start()
    return server
