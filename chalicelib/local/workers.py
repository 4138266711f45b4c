"""The app's event functions (the SQS-triggered notifiers and the scheduled jobs) in a process
of their own, as Lambda runs them apart from the API's function: a fan-out or a delivery
batch no longer waits for, or holds up, the interpreter lock that serves the API's requests
(under `make load` the fan-out alone held it a third of the time).

The stack's process forks it (`forked`) once it has imported the app, with the environment
(stage, emulator endpoint) set.
"""

from chalicelib.local import child


def forked(tick_seconds: float, offset: float = 0.0) -> child.ForkedChild:
    """The event functions' process, to launch: they begin at `go`, once the emulator is
    ready, as their queues exist only then."""
    return child.ForkedChild("workers", lambda: serve(tick_seconds, offset))


def serve(tick_seconds: float, offset: float = 0.0) -> None:
    def start(stopped) -> str:
        from app import app  # imported already, before the fork
        from chalicelib.local import events

        child.wait_for_go()  # the queues exist once the emulator is ready
        events.start_all(app, tick_seconds, stopped, offset)
        return "polling"

    child.serve_until_stopped(start)
