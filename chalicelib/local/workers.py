"""The app's event functions (the SQS-triggered notifiers and the scheduled jobs) in a process
of their own, as Lambda runs them apart from the API's function: a fan-out or a delivery
batch no longer waits for, or holds up, the interpreter lock that serves the API's requests
(under `make load` the fan-out alone held it a third of the time).

The stack's process forks it (`forked`) once it has imported the app, with the environment
(stage, emulator endpoint) set.

It runs at a lower CPU priority (`NICENESS`) than the API's process and the emulator. On AWS
the event functions have processors of their own; here they share two cores with the API, and
a publish (a page's files rendered and compressed: a third of a core under `make load`) took
its share from the requests being answered. Lowered, a publish takes what the requests leave
and is not stopped by them: it still gets about a quarter of a busy core (the kernel's weight
of nice 5 against 0), and the publishes a burst of writes asks for are fewer and larger.
"""

import os

from chalicelib.local import child

NICENESS = 5


def forked(tick_seconds: float, offset: float = 0.0) -> child.ForkedChild:
    """The event functions' process, to launch: they begin at `go`, once the emulator is
    ready, as their queues exist only then."""
    return child.ForkedChild("workers", lambda: serve(tick_seconds, offset))


def serve(tick_seconds: float, offset: float = 0.0) -> None:
    def start(stopped) -> str:
        from app import app  # imported already, before the fork
        from chalicelib.local import events

        child.wait_for_go()  # the queues exist once the emulator is ready
        os.nice(NICENESS)
        events.start_all(app, tick_seconds, stopped, offset)
        return "polling"

    child.serve_until_stopped(start)
