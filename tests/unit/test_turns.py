"""Writers of one item in one process take turns (`chalicelib.domain.turns`), in the order
they asked."""

import threading
import time

from chalicelib.domain import turns


def test_a_turn_goes_to_the_writer_waiting_longest_not_to_one_asking_later():
    order = []
    waiting = []

    def writer(name: str) -> None:
        waiting.append(name)
        with turns.taken("component-1"):
            order.append(name)

    with turns.taken("component-1"):
        first = threading.Thread(target=writer, args=("waited",))
        first.start()
        while not waiting:
            time.sleep(0.01)
        time.sleep(0.1)  # asleep on the turn, not merely started
    # Freed, and asked for again at once by the thread that had it (a request just arrived):
    # the writer that waited goes first.
    with turns.taken("component-1"):
        order.append("later")
    first.join()
    assert order == ["waited", "later"]
