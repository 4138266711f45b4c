"""The app's event functions (the SQS-triggered notifiers and the scheduled jobs) in a process
of their own, as Lambda runs them apart from the API's function: a fan-out or a delivery
batch no longer waits for, or holds up, the interpreter lock that serves the API's requests
(under `make load` the fan-out alone held it a third of the time).

    python -m chalicelib.local.workers TICK_SECONDS

The stack's process sets the environment (stage, emulator endpoint) that it inherits.
"""

import sys

from chalicelib.local import child


def serve(tick_seconds: float) -> None:
    def start(stopped) -> str:
        # Imported only now, as in the stack's process: the models read the environment.
        from app import app
        from chalicelib.local import events

        child.wait_for_go()  # the queues exist once the emulator is ready
        events.start_all(app, tick_seconds, stopped)
        return "polling"

    child.serve_until_stopped(start)


if __name__ == "__main__":
    serve(float(sys.argv[1]))
