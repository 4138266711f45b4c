"""`make run`: the whole stack (this process, which serves the API and the pages the site
folder does not hold yet, the front's on `PORT`, the emulator's and the event functions');
Ctrl-C (or SIGTERM) stops it all."""

import json
import logging
import os
import signal
import sys
import threading
from pathlib import Path

from chalicelib.environment import DEFAULT_MOTO_PORT, use_local_emulator_if_local
from chalicelib.local import child, header_parsing, logs


def _port(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def main() -> int:
    logs.configure()
    header_parsing.install()
    os.environ["STAGE"] = os.environ.get("STAGE", "local")
    os.environ.pop("AWS_ENDPOINT_URL", None)  # this stack is the endpoint
    use_local_emulator_if_local()
    port = _port("PORT", 8000)
    moto_port = _port("MOTO_PORT", DEFAULT_MOTO_PORT)
    tick_seconds = float(os.environ.get("SCHEDULE_TICK_SECONDS", "60"))

    data_dir = Path(os.environ.get("DATA_DIR", ".data")).resolve()
    # The emulator takes longest to get ready: it starts first, and the rest beside it.
    storage = child.emulator(moto_port, data_dir).launch()

    # Imported only now: the models take their table names and endpoint from the environment.
    from app import app
    from chalicelib.admin import bootstrap, index_recipients, one_time_password, publish_all
    from chalicelib.local import heap, server, workers
    from chalicelib.sitestore import site_dir

    # A fork of this process, with the app imported, before any thread starts.
    # `make run-regions` starts the second region's tick half a tick later: both regions'
    # every-minute functions claim each due step, and apart, each claim has replicated before
    # the other region looks (docs/operations.md).
    offset = float(os.environ.get("SCHEDULE_TICK_OFFSET_SECONDS", "0"))
    functions = workers.forked(tick_seconds, offset).launch()
    try:
        # Nothing listens before the data directory is checked: a damaged one is refused
        # before any port answers.
        storage.checked()
        opened = threading.Event()
        # The app on an internal port; the front on `port` answers the published pages from
        # the site folder and hands it everything else, which gets 503 until `opened`.
        http = server.start(app, "127.0.0.1", _port("API_PORT", 0), opened)
        api_port = http.server.server_address[1]
        front = child.front(port, api_port, site_dir()).launch()
        had_data = storage.ready() == "data"
    except RuntimeError as refused:  # a damaged data directory, say: its line, no traceback
        print(f"error: {refused}", file=sys.stderr, flush=True)
        return 1
    opened.set()  # the emulator has loaded the data: every answer from now on is right
    functions.go()
    index_recipients()  # data of an earlier version: subscribers without recipient items
    publish_all()  # pages of an earlier version, or published under other settings
    # Under `make run-regions` only the primary makes the first data; the other region gets
    # it by replication.
    if not had_data and os.environ.get("LOCAL_BOOTSTRAP", "1") == "1":
        created = bootstrap()
        print("First start: made an organization, an owner, an API key and a page.")
        print("Keep the key; it is shown only this once:")
        print(json.dumps(created, indent=2))
        password = one_time_password(created["user_id"])
        print(f"Console: http://127.0.0.1:{port}/manage")
        print(f"  sign in as owner@example.com with the one-time password {password}")
        print('  (shown only now; a new one: make admin ARGS="set-password --user USER_ID")')

    stopped = threading.Event()

    def stop(signum, frame):
        stopped.set()

    # Before the ready line: a supervisor may signal the moment it reads it.
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    functions.ready()
    front.ready()
    heap.settle_long_lived(stopped)
    print(
        f"Status page API ready on http://127.0.0.1:{port} (emulator on :{moto_port}); "
        f"console: http://127.0.0.1:{port}/manage; "
        f"outbox (the emails and texts sent): http://127.0.0.1:{port}/_local/outbox",
        flush=True,
    )

    stopped.wait()
    print("Stopping...", flush=True)
    front.stop()
    http.server.shutdown()  # no new requests; one in flight was not acknowledged yet
    functions.stop()
    storage.stop()
    return 0


if __name__ == "__main__":
    code = main()
    # Nothing is left to save: the journal wrote every acknowledged write as it happened, and
    # a message a poller was handling comes back at the next start, to be handled again
    # idempotently. Leaving at once, rather than through the interpreter's finalization
    # under a dozen daemon threads (seconds), keeps a stop within 2 s.
    logging.shutdown()
    sys.stdout.flush()
    os._exit(code)
