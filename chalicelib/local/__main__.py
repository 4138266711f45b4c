"""`make run`: the whole stack in one process; Ctrl-C stops it all."""

import json
import logging
import os
import signal
import sys
import threading

from chalicelib.environment import DEFAULT_MOTO_PORT, use_local_emulator_if_local


def _port(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's per-request lines
    os.environ["STAGE"] = os.environ.get("STAGE", "local")
    os.environ.pop("AWS_ENDPOINT_URL", None)  # this stack is the endpoint
    use_local_emulator_if_local()
    port = _port("PORT", 8000)
    moto_port = _port("MOTO_PORT", DEFAULT_MOTO_PORT)
    tick_seconds = float(os.environ.get("SCHEDULE_TICK_SECONDS", "60"))

    # Imported only now: the models take their table names and endpoint from the environment.
    from app import app
    from chalicelib.admin import bootstrap
    from chalicelib.local import emulator, events, persistence, server

    moto = emulator.start(moto_port)
    emulator.create_resources(app)
    had_data = persistence.restore()
    if not had_data:
        created = bootstrap()
        persistence.save()
        print("First start: made an organization, an owner, an API key and a page.")
        print("Keep the key; it is shown only this once:")
        print(json.dumps(created, indent=2))

    stopped = threading.Event()
    http = server.start(app, "127.0.0.1", port)
    threads = events.start_all(app, tick_seconds, stopped)
    snapshots = persistence.Snapshotter()
    snapshots.start()
    print(
        f"Status page API ready on http://127.0.0.1:{port} (emulator on :{moto_port})", flush=True
    )

    def stop(signum, frame):
        stopped.set()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    stopped.wait()
    print("Stopping...", flush=True)
    http.server.shutdown()
    for thread in threads:
        thread.join(timeout=5)
    snapshots.stop()
    moto.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
