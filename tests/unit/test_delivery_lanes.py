"""Sends in lanes: bounded per lane, retried off the workers."""

import threading
import time

from chalicelib.notify import lanes, queues


def recipients(count: int, prefix: str) -> list[dict]:
    return [{"id": f"{prefix}{n}", "key": f"{prefix}{n}"} for n in range(count)]


def test_one_lane_never_takes_more_than_its_share_of_the_workers():
    running = {"slow": 0, "fast": 0}
    most = {"slow": 0, "fast": 0}
    lock = threading.Lock()

    def attempt(lane, pause):
        def send(to):
            with lock:
                running[lane] += 1
                most[lane] = max(most[lane], running[lane])
            time.sleep(pause)
            with lock:
                running[lane] -= 1
            return []

        return send

    sends = [lanes.Send("slow", [r], attempt("slow", 0.2)) for r in recipients(6, "s")]
    sends += [lanes.Send("fast", [r], attempt("fast", 0.01)) for r in recipients(20, "f")]
    started = time.monotonic()
    outcomes = lanes.Lanes(workers=4, per_lane=lambda lane: 2).run(sends)
    assert all(outcomes.values()) and len(outcomes) == 26
    assert most == {"slow": 2, "fast": 2}
    assert time.monotonic() - started < 1.0  # 3 rounds of the slow lane, the fast alongside


def test_a_failed_send_waits_for_its_retry_without_holding_a_worker(monkeypatch):
    monkeypatch.setattr(lanes, "BACKOFF_SECONDS", (0.3, 0.3))
    finished = {}

    def failing(to):
        return to

    def fine(to):
        finished[to[0]["id"]] = time.monotonic()
        return []

    started = time.monotonic()
    sends = [lanes.Send("dead", recipients(1, "d"), failing)]
    sends += [lanes.Send("alive", [r], fine) for r in recipients(5, "a")]
    outcomes = lanes.Lanes(workers=1, per_lane=lambda lane: 1).run(sends)
    assert outcomes == {"d0": False, **{f"a{n}": True for n in range(5)}}
    assert max(finished.values()) - started < 0.25  # before the dead one's first retry


def test_messages_are_sent_in_groups_sqs_takes():
    bodies = ["x" * 100_000, "y" * 100_000, "z" * 100_000, *["s"] * 12]
    groups = queues._sends(bodies)
    assert [len(group) for group in groups] == [2, 10, 3]
    assert all(sum(len(b) for b in group) <= queues.BYTES_PER_SEND for group in groups)


def test_a_failed_delivery_is_tried_three_times_within_the_contracts_30_seconds(monkeypatch):
    from chalicelib import config

    monkeypatch.delenv("DELIVERY_RETRY_SECONDS", raising=False)
    assert config.delivery_retry_seconds() == (2.0, 5.0)
    for setting, pauses in (("0.2,0.5", (0.2, 0.5)), ("1,60", (2.0, 5.0)), ("x", (2.0, 5.0))):
        monkeypatch.setenv("DELIVERY_RETRY_SECONDS", setting)
        assert config.delivery_retry_seconds() == pauses, setting
    # The first two attempts may each take the webhook's timeout: the third still begins
    # within 30 s.
    from chalicelib.notify import webhook

    assert 2 * webhook.TIMEOUT_SECONDS + sum(config.delivery_retry_seconds()) <= 30
