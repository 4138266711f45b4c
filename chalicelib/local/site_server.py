"""The local stack's front on `PORT`: the published public pages answered from the site
folder, everything else handed to the app's server on an internal port.

    python -m chalicelib.local.site_server PORT API_PORT SITE_DIR

As a static host in front of the functions does on AWS, a public page keeps answering while
the app or the emulator is busy or stopped: an answer from the files never waits for either.
It is an asyncio server on uvloop with httptools' parser, answering from whole answers kept
in memory (`site_files`). Measured on the 2-core development machine (`wrk -t2 -c64`, a
30 KB page): 48,000-55,000 requests a second, p99 under 5 ms, where node's `http` answering
the same bytes from memory made 28,000-43,000; aiohttp made 19,000-26,000, granian 33,000-35,000
as an ASGI app and 12,000-16,000 from its static mount (which has no per-file headers).

Requests the files do not answer are forwarded as they came (method, target, headers, `Host`
included, body), each on a connection of its own, and the app's answer is passed back byte
for byte, with `X-Forwarded-For` naming the client (the one the client sent is dropped).
Bodies are read as `server.py` reads them (whole, reassembled from chunks, 400 and
closed when cut short or stalled past `BODY_TIMEOUT_SECONDS`, 413 past
`MAX_TRANSPORT_BYTES`), here, before anything reaches the app. A head must arrive whole
within a few seconds and fit in 64 KiB (else 400, or 431, in the contract's JSON), so a
client trickling bytes or sending nothing holds no connection.
"""

import asyncio
import http
import json
import logging
import os
import socket
import sys
import threading
import time
from collections import deque
from pathlib import Path

import httptools
import uvloop

from chalicelib.http import errors
from chalicelib.local import child
from chalicelib.local.server import BODY_TIMEOUT_SECONDS, MAX_TRANSPORT_BYTES
from chalicelib.local.site_files import PUBLISHING, SiteFiles, http_date

log = logging.getLogger(__name__)

# The app's whole answer, from connecting to its last byte.
APP_TIMEOUT_SECONDS = 30.0
# A path caught between a publish's files and its manifest is asked again this often, for
# this long, before the app is asked instead (a publisher that died halfway).
PUBLISH_POLL_SECONDS = 0.01
PUBLISH_WAIT_SECONDS = 2.0
# `Front.answer` of such a path.
PENDING = object()
# As API Gateway does, a request head (request line and headers) must arrive whole within
# HEAD_TIMEOUT_SECONDS of its first byte, or of the connection's opening for its first
# request: a head that stops, or trickles a byte at a time, is a 400 and the connection
# closes; a connection that sends nothing is closed. A kept-alive connection waits
# KEEP_ALIVE_SECONDS for its next request. Checked once a second (`serve`).
HEAD_TIMEOUT_SECONDS = 5.0
KEEP_ALIVE_SECONDS = 60.0
# A body must also arrive whole within this long of its head's end (besides stalling no longer
# than BODY_TIMEOUT_SECONDS), and a client that reads none of its answers for this long is
# dropped: a trickle cannot hold a connection either way.
BODY_DEADLINE_SECONDS = 30.0
WRITE_TIMEOUT_SECONDS = 60.0
# After its last answer a connection is shut for writing and read (and dropped) this long at
# most before it closes: closing with a request's rest unread would reset the connection,
# and the client could lose the answer with it.
LINGER_SECONDS = 2.0
MAX_HEAD_BYTES = 64 * 1024
# Header fields of one request: the app's reader (`http.client`) takes 100, and the front
# adds two (`Connection`, `X-Forwarded-For`). Past either bound the front answers 431 itself.
MAX_HEADER_FIELDS = 98
# Requests of one connection read ahead of their answers (pipelining) before reading pauses.
MAX_QUEUED = 16
# Request headers the files look at, and the ones that frame a body.
_WANTED = {
    b"host",
    b"if-none-match",
    b"if-modified-since",
    b"accept-encoding",
    b"content-length",
    b"transfer-encoding",
    b"expect",
}
# Hop-by-hop: they describe the client's connection, not the request the app reads. The
# client's own `X-Forwarded-For` is dropped too: the front says who the client is (the
# console's sign-in counts failures per client).
_NOT_FORWARDED = {
    b"connection",
    b"keep-alive",
    b"proxy-connection",
    b"upgrade",
    b"expect",
    b"te",
    b"x-forwarded-for",
}


def _error_bytes(error: errors.ApiError) -> bytes:
    body = json.dumps(error.body()).encode()
    head = (
        f"HTTP/1.1 {error.status} {http.HTTPStatus(error.status).phrase}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body


_BAD_REQUEST = _error_bytes(errors.bad_request())
_TOO_LARGE = _error_bytes(errors.too_large(MAX_TRANSPORT_BYTES))
_HEAD_TOO_LARGE = _error_bytes(errors.ApiError(431, "Request header fields too large"))
_BAD_GATEWAY = _error_bytes(errors.ApiError(502, "Bad gateway"))
_GATEWAY_TIMEOUT = _error_bytes(errors.ApiError(504, "Gateway timeout"))
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


class _Refusal(Exception):
    """A request the front answers itself, closing the connection after: `answer`."""

    def __init__(self, answer: bytes):
        super().__init__()
        self.answer = answer


class _Request:
    __slots__ = ("method", "target", "headers", "wanted", "body", "chunked", "keep_alive", "client")

    def __init__(self, method, target, headers, wanted, body, chunked, keep_alive, client):
        self.method = method
        self.target = target
        self.headers = headers
        self.wanted = wanted
        self.body = body
        self.chunked = chunked
        self.keep_alive = keep_alive
        self.client = client  # the peer's address, as bytes


class Front:
    """What every connection shares: the site's files, the app's address, the current Date."""

    def __init__(self, site: SiteFiles, api_port: int):
        self.site = site
        self.api_port = api_port
        self.connections: set[_Connection] = set()
        self._second = 0
        self._date = b""

    def date(self) -> bytes:
        now = int(time.time())
        if now != self._second:
            self._second, self._date = now, http_date(now)
        return self._date

    def answer(self, method: str, target: str, wanted: dict[str, str]) -> bytes | object | None:
        """The answer from the files, None (the app answers) or PENDING (a publish is under
        way: ask again)."""
        try:
            answer = self.site.answer_lowered(method, wanted.get("host"), target, wanted)
        except Exception:
            log.exception("reading the site for %s failed", target)
            return None
        if answer is PUBLISHING:
            return PENDING
        return None if answer is None else answer.wire(self.date())

    async def answer_soon(self, method: str, target: str, wanted: dict[str, str]) -> bytes | None:
        """`answer`, waiting for a publish under way to write its manifest."""
        waited = 0.0
        answer = self.answer(method, target, wanted)
        while answer is PENDING and waited < PUBLISH_WAIT_SECONDS:
            await asyncio.sleep(PUBLISH_POLL_SECONDS)
            waited += PUBLISH_POLL_SECONDS
            answer = self.answer(method, target, wanted)
        return None if answer is PENDING else answer

    async def forward(self, request: _Request) -> tuple[bytes, bool]:
        """The app's answer to `request`, and whether the client's connection may stay open."""
        try:
            async with asyncio.timeout(APP_TIMEOUT_SECONDS):
                return await self._exchange(request)
        except TimeoutError:
            log.warning("the app did not answer %s %s in time", request.method, request.target)
            return _GATEWAY_TIMEOUT, False
        except OSError as error:
            log.warning("the app is unreachable: %s", error)
            return _BAD_GATEWAY, False

    async def _exchange(self, request: _Request) -> tuple[bytes, bool]:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.api_port)
        try:
            writer.write(_upstream_head(request))
            body = request.body
            if request.chunked:
                if body:
                    writer.write(b"%x\r\n" % len(body))
                    writer.write(body)
                    writer.write(b"\r\n")
                writer.write(b"0\r\n\r\n")
            elif body:
                writer.write(body)
            await writer.drain()
            received = await reader.read(-1)  # the app closes after answering
        finally:
            writer.close()
        return _passed_back(received, request.method == "HEAD")


def _upstream_head(request: _Request) -> bytes:
    lines = [b"%s %s HTTP/1.1" % (request.method.encode(), request.target.encode("latin-1"))]
    lines += [
        name + b": " + value
        for name, value in request.headers
        if name.lower() not in _NOT_FORWARDED
    ]
    lines.append(b"X-Forwarded-For: " + request.client)
    lines.append(b"Connection: close\r\n\r\n")
    return b"\r\n".join(lines)


def _passed_back(received: bytes, head_only: bool) -> tuple[bytes, bool]:
    """The app's answer as the client gets it, and whether the connection may stay open."""
    end = received.find(b"\r\n\r\n")
    if end < 0 or not received.startswith(b"HTTP/1."):
        log.warning("the app's answer is not HTTP: %r", received[:80])
        return _BAD_GATEWAY, False
    head = received[: end + 4]
    fields = {}
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        fields[name.strip().lower()] = value.strip()
    status = received[9:12]
    keep_alive = fields.get(b"connection", b"").lower() != b"close"
    if head_only or status[:1] == b"1" or status in (b"204", b"304"):
        return head, keep_alive
    length = fields.get(b"content-length")
    if length is None or not length.isdigit():
        return received, False  # the body ends where the connection does
    whole = end + 4 + int(length)
    if len(received) < whole:
        log.warning("the app's answer ended before its Content-Length")
        return _BAD_GATEWAY, False
    return received[:whole], keep_alive


class _Connection(asyncio.Protocol):
    """One client connection: requests parsed as they come, answered in their order."""

    def __init__(self, front: Front):
        self.front = front
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.queue: deque = deque()  # requests (and a last refusal) waiting their turn
        self.draining = False
        self.done = False  # nothing more is read: the answers queued are the last
        # Reading pauses while the client does not read its answers, or sends too many ahead.
        self.writes_paused = False
        self.reading = True
        self.eof = False  # the client sends nothing more
        self.lingering: asyncio.TimerHandle | None = None
        self.client = b""
        # Monotonic times: the last read; the start of the head under way (or awaited, for
        # the first request); the end of the head (its body's clock); the last answer
        # written; when writing paused.
        self.last_data = self.head_started = self.head_ended = self.answered_at = 0.0
        self.writes_paused_at = 0.0
        self.messages = 0  # requests begun on this connection
        self._new_message()
        self.in_message = self.in_head = False

    def _new_message(self) -> None:
        self.target = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.wanted: dict[str, str] = {}
        self.body: list[bytes] | None = None
        self.body_size = 0
        self.head_size = -1  # begun in the read under way: counted from the next read on
        # What the parser handed over of the head: its target, names and values with their
        # separators (the head's own size, whatever the reads it came in).
        self.head_bytes = 0
        self.in_message = self.in_head = True
        self.in_body = False

    # asyncio's side.
    def connection_made(self, transport) -> None:
        self.transport = transport
        self.last_data = self.head_started = time.monotonic()
        peer = transport.get_extra_info("peername")
        self.client = str(peer[0]).encode() if peer else b"unknown"
        self.front.connections.add(self)

    def connection_lost(self, exc) -> None:
        self.done = True
        self.queue.clear()
        self.front.connections.discard(self)
        if self.lingering is not None:
            self.lingering.cancel()

    def data_received(self, data: bytes) -> None:
        if self.done:
            return  # lingering, or a request that will not be answered
        self.last_data = time.monotonic()
        try:
            self.parser.feed_data(data)
            if self.in_head:
                # Counted by the reads that are all head: the one it began in (256 KiB at
                # most) may hold the end of another request.
                self.head_size += len(data) if self.head_size >= 0 else 1
                if self.head_size > MAX_HEAD_BYTES:
                    self._refuse(_HEAD_TOO_LARGE)
        except httptools.HttpParserCallbackError as error:
            refusal = error.__context__
            if isinstance(refusal, _Refusal):
                self._refuse(refusal.answer)
            else:
                log.error("request handling failed", exc_info=refusal)
                self._refuse(_BAD_REQUEST)
        except httptools.HttpParserUpgrade:
            # Answered as any request (nothing here upgrades); then the connection closes.
            self.done = True
            self._read_or_not()
            if not self.queue:
                self._close()
        except httptools.HttpParserError:
            self._refuse(_BAD_REQUEST)

    def eof_received(self) -> bool:
        self.eof = True
        if self.lingering is not None:
            return False  # closes
        if self.in_message and not self.done:
            self._refuse(_BAD_REQUEST)  # a body (or head) cut short
        elif self.queue:
            self.done = True  # closed once the answers under way are out
        else:
            self._close()
        return True  # the answers under way still go out

    def pause_writing(self) -> None:
        self.writes_paused = True
        self.writes_paused_at = time.monotonic()
        self._read_or_not()

    def resume_writing(self) -> None:
        self.writes_paused = False
        self._read_or_not()

    # httptools' side.
    def on_message_begin(self) -> None:
        self._new_message()
        if self.messages:  # the first request's head counts from the connection's opening
            self.head_started = self.last_data
        self.messages += 1

    def on_url(self, url: bytes) -> None:
        self.target += url
        self.head_bytes += len(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))
        self.head_bytes += len(name) + len(value) + 4
        if len(self.headers) > MAX_HEADER_FIELDS:
            raise _Refusal(_HEAD_TOO_LARGE)

    def on_headers_complete(self) -> None:
        self.in_head = False
        self.head_ended = self.last_data
        if self.head_bytes > MAX_HEAD_BYTES:
            # A head that came whole in one read is measured only here.
            raise _Refusal(_HEAD_TOO_LARGE)
        wanted = self.wanted
        for name, value in self.headers:
            lowered = name.lower()
            if lowered in _WANTED:
                key = lowered.decode()
                text = value.decode("latin-1")
                wanted[key] = f"{wanted[key]}, {text}" if key in wanted else text
        length = wanted.get("content-length")
        chunked = "chunked" in wanted.get("transfer-encoding", "").lower()
        if length is not None:
            length = length.split(",")[0].strip()  # the parser refuses differing ones
            if not length.isdigit():
                raise _Refusal(_BAD_REQUEST)
            if int(length) > MAX_TRANSPORT_BYTES:
                raise _Refusal(_TOO_LARGE)
        if chunked or (length is not None and int(length) > 0):
            self.body = []
            self.in_body = True
            expects = wanted.get("expect", "").lower() == "100-continue"
            if expects and not self.queue and not self.draining:
                self.transport.write(_CONTINUE)

    def on_body(self, body: bytes) -> None:
        self.body_size += len(body)
        if self.body_size > MAX_TRANSPORT_BYTES:
            raise _Refusal(_TOO_LARGE)
        self.body.append(body)

    def on_message_complete(self) -> None:
        self.in_message = self.in_body = False
        parser = self.parser
        method = parser.get_method()
        if (method == b"GET" or method == b"HEAD") and not self.queue and not self.draining:
            # The fast path: nothing waits ahead of it, and the files may answer.
            answer = self.front.answer(method.decode(), self.target.decode("latin-1"), self.wanted)
            if answer is not None and answer is not PENDING:
                self.transport.write(answer)
                self.answered_at = self.last_data
                if not parser.should_keep_alive():
                    self._close()
                return
        request = _Request(
            method.decode(),
            self.target.decode("latin-1"),
            self.headers,
            self.wanted,
            b"".join(self.body) if self.body is not None else None,
            "chunked" in self.wanted.get("transfer-encoding", "").lower(),
            parser.should_keep_alive(),
            self.client,
        )
        self._enqueue(request)

    # Answering in order.
    def _enqueue(self, item) -> None:
        self.queue.append(item)
        self._read_or_not()
        if not self.draining:
            self.draining = True
            asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self.queue and not self.transport.is_closing():
                item = self.queue[0]
                if isinstance(item, bytes):  # a refusal: the last answer
                    self.transport.write(item)
                    self._close()
                    return
                answer = await self.front.answer_soon(item.method, item.target, item.wanted)
                keep_alive = True
                if answer is None:
                    answer, keep_alive = await self.front.forward(item)
                if self.transport.is_closing():
                    return  # the client left
                self.transport.write(answer)
                self.answered_at = time.monotonic()
                self.queue.popleft()
                self._read_or_not()
                if not (keep_alive and item.keep_alive) or (self.done and not self.queue):
                    self._close()
                    return
        except Exception:
            log.exception("answering a request failed")
            self._close()
        finally:
            self.draining = False

    def _refuse(self, answer: bytes) -> None:
        """Answer `answer` after those under way, then close: nothing after it is read."""
        self.in_message = self.in_body = False
        self.done = True
        self._read_or_not()
        if self.queue or self.draining:
            self.queue.append(answer)
        else:
            self.transport.write(answer)
            self._close()

    def _close(self) -> None:
        """Close once what was written is out (lingering while the client may still send)."""
        self.done = True
        self.queue.clear()
        transport = self.transport
        if transport.is_closing() or self.lingering is not None:
            return
        if self.eof or not transport.can_write_eof():
            transport.close()
            return
        transport.write_eof()
        self.lingering = asyncio.get_running_loop().call_later(LINGER_SECONDS, transport.close)
        self._read_or_not()

    def _read_or_not(self) -> None:
        held = self.done or self.writes_paused or len(self.queue) >= MAX_QUEUED
        wanted = self.lingering is not None or not held
        if wanted != self.reading and not self.transport.is_closing():
            self.reading = wanted
            if wanted:
                self.transport.resume_reading()
            else:
                self.transport.pause_reading()

    def check_timeouts(self, now: float) -> None:
        """Called every second: a head or body late is a 400; a connection that sends
        nothing, or waits too long for its next request, goes; so does a client that stops
        reading its answers."""
        if self.transport.is_closing():
            return
        if self.writes_paused and now - self.writes_paused_at >= WRITE_TIMEOUT_SECONDS:
            self.transport.abort()  # nothing more can reach it
            return
        if self.done or not self.reading:
            return  # not reading: the wait is the front's, not the client's
        if self.in_body:
            stalled = now - self.last_data >= BODY_TIMEOUT_SECONDS
            if stalled or now - self.head_ended >= BODY_DEADLINE_SECONDS:
                self._refuse(_BAD_REQUEST)
        elif self.in_message:
            if now - self.head_started >= HEAD_TIMEOUT_SECONDS:
                self._refuse(_BAD_REQUEST)
        elif self.queue or self.draining:
            return  # answers under way: the wait is the app's
        elif not self.messages:
            if now - self.head_started >= HEAD_TIMEOUT_SECONDS:
                self._close()  # nothing sent: nothing to answer
        elif now - self.answered_at >= KEEP_ALIVE_SECONDS:
            self._close()


async def serve(front: Front, listening: socket.socket) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Connection(front), sock=listening, backlog=1024)
    async with server:
        while True:
            await asyncio.sleep(1.0)
            now = time.monotonic()
            for connection in list(front.connections):
                connection.check_timeouts(now)


def listen(port: int) -> socket.socket:
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listening.bind(("127.0.0.1", port))
    listening.listen(1024)
    listening.setblocking(False)
    return listening


def serve_in_thread(front: Front, listening: socket.socket) -> None:
    """Serve `front` on a thread of its own; the process ends should it stop."""

    def loop() -> None:
        try:
            uvloop.run(serve(front, listening))
        except BaseException:
            log.exception("the front stopped")
            os._exit(1)

    threading.Thread(target=loop, name="front", daemon=True).start()


def run(port: int, api_port: int, site_dir: Path) -> None:
    def start(stopped: threading.Event) -> str:
        listening = listen(port)  # listening before the ready line
        serve_in_thread(Front(SiteFiles(site_dir), api_port), listening)
        return str(listening.getsockname()[1])

    child.serve_until_stopped(start)


if __name__ == "__main__":
    run(int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]))
