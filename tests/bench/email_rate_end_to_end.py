"""Email at SES's sending rate, end to end on the local stack: email subscribers made through
the API, the emulator's SES limited to `SES_MAX_SEND_RATE`, one incident created through the
API; every email counted per address at the emulator, the last one timed from the create's
answer, and the subscribers quarantined counted through the API.

    python -m tests.bench.email_rate_end_to_end SUBSCRIBERS [--rate 50]

`test_email_rate_bench` runs it for `make bench`.
"""

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.bench.fanout_end_to_end import create_incident, make_subscribers
from tests.e2e.stack import LocalStack


@dataclass
class EmailRateFigures:
    subscribers: int
    rate: float
    reached: int
    duplicates: int
    quarantined: int
    last: float  # seconds after the create's answer
    quota: dict

    @property
    def allowed(self) -> float:
        """The seconds the rate allows the emails."""
        return self.subscribers / self.rate

    def lines(self) -> list[str]:
        return [
            f"GetSendQuota: MaxSendRate {self.quota['MaxSendRate']:g}, "
            f"Max24HourSend {self.quota['Max24HourSend']:g}, "
            f"SentLast24Hours {self.quota['SentLast24Hours']:g}",
            f"{self.reached} of {self.subscribers} email subscribers sent an email, "
            f"{self.duplicates} twice, {self.quarantined} quarantined",
            f"last email {self.last:.2f} s after the create's answer; the rate "
            f"({self.rate:g}/s) allows {self.allowed:.0f} s (target: within 1.5x, "
            f"{1.5 * self.allowed:.0f} s), {self.reached / max(self.last, 1e-9):.1f} emails/s",
        ]


def _address(page_id: str, number: int) -> str:
    return f"reader-{number}@{page_id.lower()}.example.com"


def quarantined(stack: LocalStack, key: str, page_id: str) -> int:
    histogram = stack.get(f"/v1/pages/{page_id}/subscribers/histogram_by_state", key).json()
    return sum(kinds.get("quarantined", 0) for kinds in histogram.values())


def run(subscribers: int, rate: float = 50) -> EmailRateFigures:
    with tempfile.TemporaryDirectory() as data:
        stack = LocalStack(Path(data), SES_MAX_SEND_RATE=f"{rate:g}").start()
        try:
            page = stack.admin("bootstrap")
            key, page_id = page["api_key"], page["page_id"]
            quiet = {"skip_confirmation_notification": True}
            make_subscribers(
                stack, page, subscribers, lambda n: {"email": _address(page_id, n), **quiet}
            )
            _, answered = create_incident(stack, key, page_id)
            ours = {_address(page_id, number) for number in range(1, subscribers + 1)}
            deadline = time.monotonic() + 3 * subscribers / rate + 60
            counted = stack.sent_counts()
            while time.monotonic() < deadline:
                if len(ours & set(counted["to"])) == subscribers and stack.queues_idle():
                    break
                time.sleep(0.5)
                counted = stack.sent_counts()
            time.sleep(2)  # anything sent twice would arrive now
            counted = stack.sent_counts()
            sent = {address: n for address, n in counted["to"].items() if address in ours}
            quota = stack.emulator("ses").get_send_quota()
            return EmailRateFigures(
                subscribers,
                rate,
                len(sent),
                sum(n - 1 for n in sent.values() if n > 1),
                quarantined(stack, key, page_id),
                (counted["last_at"] or answered) - answered,
                quota,
            )
        finally:
            stack.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("subscribers", type=int)
    parser.add_argument("--rate", type=float, default=50)
    arguments = parser.parse_args()
    print("\n".join(run(arguments.subscribers, arguments.rate).lines()))


if __name__ == "__main__":
    main()
