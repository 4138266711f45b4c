"""What the tests' HTTP servers share (webhook sinks, check targets, summary sources): a
threaded server on a free loopback port, served on a daemon thread inside a `with`."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LoopbackServer:
    def __init__(self, handler: type[BaseHTTPRequestHandler], backlog: int = 5):
        class Server(ThreadingHTTPServer):
            daemon_threads = True
            # Deliveries and checks connect at once: a backlog of 5 would drop SYNs (1 s
            # retries), so those servers ask for more.
            request_queue_size = backlog

        self.server = Server(("127.0.0.1", 0), handler)
        # Polled every 50 ms for a shutdown: at the default 0.5 s each `with` ended ~0.45 s late.
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()  # returns at once when already shut down
        self.server.server_close()
