"""Write latency on the running local stack, over HTTP, as an API client meets it.

Run by `test_write_bench` in a process of its own (the models must point at the stack's
emulator before they are imported): `python -m tests.bench.write_latency <stack url>`, with
the stack's STAGE and MOTO_PORT in the environment. Prints one JSON object of medians (ms).

The reference is a bare Chalice handler doing one 5-item TransactWrite on the same emulator,
served here over HTTP the way the stack serves the app.
"""

import json
import statistics
import sys
import time
from datetime import timedelta

import requests

from chalicelib.environment import use_local_emulator_if_local

ROUNDS = 40
WARM_UP = 5
# Each timed request starts on an idle stack: locally the previous write's fan-out runs in the
# same process as the API and the emulator, where on AWS it has functions of its own.
PAUSE_SECONDS = 0.3


def _median_ms(session: requests.Session, method: str, url: str, **kwargs) -> float:
    timings = []
    for round_number in range(WARM_UP + ROUNDS):
        time.sleep(PAUSE_SECONDS)
        started = time.perf_counter()
        answer = session.request(method, url, timeout=30, **kwargs)
        elapsed = (time.perf_counter() - started) * 1000
        assert answer.status_code < 300, answer.text
        if round_number >= WARM_UP:
            timings.append(elapsed)
    return statistics.median(timings)


def _bare_url() -> str:
    from chalice import Chalice

    from chalicelib import clock, ids
    from chalicelib.local import server
    from chalicelib.store.base import transaction
    from chalicelib.store.deliveries import DeliveryClaim
    from tests.e2e.stack import free_port

    bare = Chalice(app_name="bare")

    @bare.route("/write", methods=["POST"])
    def write():
        with transaction() as writes:
            for _ in range(5):
                writes.save(DeliveryClaim(ids.new_id(), expires_at=clock.now() + timedelta(days=1)))
        return {"ok": True}

    port = free_port()
    server.start(bare, "127.0.0.1", port)
    return f"http://127.0.0.1:{port}/write"


def _page_with_history(count: int) -> tuple[str, str]:
    """A new organization's API key and its page with `count` resolved incidents."""
    from chalicelib.domain import organizations, pages
    from chalicelib.domain.pages import PageInput
    from tests.api.test_bounded_cost import write_history

    organization = organizations.create_organization(f"Bench {count}")
    owner = organizations.create_user(organization.id, f"owner{count}@example.com", owner=True)
    api_key = organizations.create_api_key(owner)
    page = pages.create_page(organization.id, PageInput(name=f"Bench {count}"))
    write_history(page.id, count)
    return api_key, page.id


def main(stack_url: str) -> None:
    use_local_emulator_if_local()
    session = requests.Session()
    # Both requests carry the same body and headers: the HTTP path costs both the same.
    body = {"incident": {"name": "Down", "status": "resolved", "body": "Back"}}
    bare_key = "unused-by-the-bare-handler"
    figures = {
        "bare": _median_ms(
            session, "POST", _bare_url(), json=body, headers={"Authorization": f"OAuth {bare_key}"}
        )
    }
    for count in (20, 2000):
        api_key, page_id = _page_with_history(count)
        figures[f"create at {count}"] = _median_ms(
            session,
            "POST",
            f"{stack_url}/v1/pages/{page_id}/incidents",
            json=body,
            headers={"Authorization": f"OAuth {api_key}"},
        )
    print(json.dumps(figures))


if __name__ == "__main__":
    main(sys.argv[1])
