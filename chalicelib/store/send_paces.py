"""The sending pace of a channel, shared by every delivery that sends on it at once.

SES counts one account's sends, whichever Lambda instance makes them: so its rate is kept in
one DynamoDB item per channel, which every delivery reserves its sends' moments from (the
generic cell rate algorithm: a token bucket written as the moment its next send may go).
"""

from dataclasses import dataclass

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.exceptions import DoesNotExist, UpdateError
from pynamodb.models import Model

from chalicelib.store.base import table_meta

# Reservations lost to other deliveries' in a row before giving up (each is one UpdateItem).
ATTEMPTS = 8


class SendPace(Model):
    """hash `channel` (`email`, `sms`): `next_slot`, the Unix millisecond at which the
    channel's next send may go (a send reserved takes it and moves it one interval on);
    `held_until`, the millisecond before which the channel sends nothing (SES's 24-hour quota
    or SNS's spend limit refused a send), with the `hold_reason`."""

    Meta = table_meta("send-paces")
    channel = UnicodeAttribute(hash_key=True)
    next_slot = NumberAttribute(null=True)
    held_until = NumberAttribute(null=True)
    hold_reason = UnicodeAttribute(null=True)


@dataclass(frozen=True)
class Reservation:
    """`first`: the moment (Unix ms) of the first of the sends reserved, None when none was:
    the channel's next free moment, `next_free`, lies past what the caller would wait for."""

    first: int | None
    next_free: int


def reserve(channel: str, span_ms: int, now_ms: int, latest_ms: int) -> Reservation:
    """Reserve `span_ms` of the channel's sending time, from its next free moment or `now_ms`
    when that has passed; none when the next free moment is past `latest_ms`. One UpdateItem
    when nobody races for it: ADD on a busy channel, SET on an idle one."""
    pace = SendPace(channel)
    for _ in range(ATTEMPTS):
        try:
            pace.update(
                actions=[SendPace.next_slot.add(span_ms)],
                condition=SendPace.next_slot.between(now_ms, latest_ms),
            )
            return Reservation(int(pace.next_slot) - span_ms, int(pace.next_slot))
        except UpdateError:
            pass
        try:
            pace.update(
                actions=[SendPace.next_slot.set(now_ms + span_ms)],
                condition=SendPace.next_slot.does_not_exist() | (SendPace.next_slot < now_ms),
            )
            return Reservation(now_ms, now_ms + span_ms)
        except UpdateError:
            pass
        try:
            found = SendPace.get(channel, consistent_read=True)
        except DoesNotExist:
            continue
        if found.next_slot is not None and found.next_slot > latest_ms:
            return Reservation(None, int(found.next_slot))
    raise RuntimeError(f"could not reserve a moment to send on {channel}")


def held_until(channel: str) -> tuple[int, str | None]:
    """Until when (Unix ms; 0: not held) the channel is held, and why."""
    try:
        found = SendPace.get(channel)
    except DoesNotExist:
        return 0, None
    return int(found.held_until or 0), found.hold_reason


def hold(channel: str, until_ms: int, reason: str) -> None:
    """Hold the channel until `until_ms`; a later hold already there stays."""
    try:
        SendPace(channel).update(
            actions=[SendPace.held_until.set(until_ms), SendPace.hold_reason.set(reason)],
            condition=SendPace.held_until.does_not_exist() | (SendPace.held_until < until_ms),
        )
    except UpdateError:
        pass


def release(channel: str, until_ms: int) -> bool:
    """End the hold that lasted until `until_ms` (a send went through after it); False when
    another delivery released it first or held it anew."""
    try:
        SendPace(channel).update(
            actions=[SendPace.held_until.remove(), SendPace.hold_reason.remove()],
            condition=SendPace.held_until == until_ms,
        )
    except UpdateError:
        return False
    return True
