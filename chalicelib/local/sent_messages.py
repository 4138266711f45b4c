"""What the local stack sent: the emails (SES) and text messages (SNS) that reached the
emulator, with the moment each was sent, for the outbox page (`outbox_page.py`).

Kept in the emulator's process, the one place the sends of every process (the API's, the
event functions') arrive: moto's backends are wrapped to note each message as they accept it,
since moto keeps no time of sending and no order across the two services. Only the last
`MAX_KEPT` are kept, and nothing across a restart. Served as JSON, newest first, at
`GET /_local/sent.json` on the emulator's port. How many messages each address was sent since
the start, and the moment of the last, are kept for all (`GET /_local/sent-counts.json`): what
a test or a benchmark of thousands counts.

moto itself keeps every email (its raw MIME: 7 KB for an incident's) and every text message
it ever accepted, in lists that only grow: each incident on a page with 1,000 email
subscribers added 7 MB to the emulator for the rest of its life. Once noted here,
each message is dropped from moto's lists (nothing of the stack reads them).
"""

import json
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable

PATH = "/_local/sent.json"
COUNTS_PATH = "/_local/sent-counts.json"
MAX_KEPT = 500

_sent: deque = deque(maxlen=MAX_KEPT)
_counts: dict[str, Counter] = {"email": Counter(), "sms": Counter()}
_last_at: dict[str, float] = {}
_lock = threading.Lock()
# moto's own methods, while `install` has replaced them (to put back: `uninstall`).
_replaced: dict = {}


def install() -> None:
    """Note every message moto's SES and SNS backends accept from now on."""
    if _replaced:
        return
    from moto.ses.models import SESBackend
    from moto.sns.models import SNSBackend

    send_raw_email = _replaced["ses"] = SESBackend.send_raw_email
    publish = _replaced["sns"] = SNSBackend.publish

    def noting_send_raw_email(self, *args, **kwargs):
        message = send_raw_email(self, *args, **kwargs)
        _forget(self.sent_messages, message)
        _note(
            {
                "kind": "email",
                "id": message.id,
                "to": list(dict.fromkeys(message.destinations or [])),  # moto adds To's
                "raw": message.raw_data,
            }
        )
        return message

    def noting_publish(self, *args, **kwargs):
        message_id = publish(self, *args, **kwargs)
        text = self.sms_messages.pop(message_id, None)
        if text is not None:  # a text message, not a topic's
            _note({"kind": "sms", "id": message_id, "to": [text[0]], "text": text[1]})
        return message_id

    SESBackend.send_raw_email = noting_send_raw_email
    SNSBackend.publish = noting_publish


def uninstall() -> None:
    """moto's own sends again (for tests that read moto's lists, after one of this module)."""
    from moto.ses.models import SESBackend
    from moto.sns.models import SNSBackend

    if _replaced:
        SESBackend.send_raw_email = _replaced.pop("ses")
        SNSBackend.publish = _replaced.pop("sns")


def _forget(kept: list, message) -> None:
    try:
        kept.remove(message)  # another thread's send may have come after it
    except ValueError:
        pass


def _note(message: dict) -> None:
    with _lock:
        moment = time.time()
        _sent.append({**message, "sent_at": moment})
        _counts[message["kind"]].update(message["to"])
        _last_at[message["kind"]] = moment


def counts() -> dict:
    """Per kind: how many messages each address was sent, and when the last was."""
    with _lock:
        return {
            kind: {"to": dict(counted), "last_at": _last_at.get(kind)}
            for kind, counted in _counts.items()
        }


def sent() -> list[dict]:
    """The messages kept, newest first."""
    with _lock:
        return list(reversed(_sent))


def serving(app: Callable) -> Callable:
    """The emulator's WSGI app, answering `GET PATH` itself."""

    def wsgi(environ: dict, start_response: Callable) -> Iterable[bytes]:
        answers = {PATH: sent, COUNTS_PATH: counts}
        if environ.get("PATH_INFO") not in answers:
            return app(environ, start_response)
        if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            start_response("405 Method Not Allowed", [("Allow", "GET"), ("Content-Length", "0")])
            return [b""]
        body = json.dumps(answers[environ["PATH_INFO"]]()).encode()
        start_response(
            "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
        )
        return [body]

    return wsgi
