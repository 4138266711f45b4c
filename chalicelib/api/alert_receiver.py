"""Where monitoring posts its alerts (issue 34, items 1, 6, 9): no API key, the integration's
token in the path (`/v1/integrations/{token}/alerts`) or, for monitoring that sends one, in an
`Authorization: Bearer <token>` header to `/v1/integrations/alerts`.

The answers, which Alertmanager and Grafana act on: 200 applied (or declined by the rules,
with why), 202 when no alert named a component of the page (retrying would not help), 400 for
a payload that is not the integration's kind (with what is wrong; recorded in the audit), 404
for an unknown or rotated token, 413 for a body over `MAX_PAYLOAD_BYTES`, 429 over the
integration's own rate limit, with `Retry-After` (Alertmanager takes a 429 as final and
posts again only at its next group interval: the default limit holds a page's every component
posting at once, docs/integrations.md).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from chalice import Blueprint

from chalicelib import schemas
from chalicelib.domain import integrations, turns
from chalicelib.domain.alert_payloads import MalformedPayload
from chalicelib.http import auth, decode, errors, ratelimit
from chalicelib.http.routing import ApiRequest, Reply, Router, Style

if TYPE_CHECKING:
    from chalicelib.store.integrations import Integration

blueprint = Blueprint(__name__)
router = Router(blueprint, "integrations")
# Alertmanager's groups of a few hundred alerts are well under this.
MAX_PAYLOAD_BYTES = 256 * 1024


def _payload(integration: Integration, raw: bytes | None):
    raw = raw or b""
    if len(raw) > MAX_PAYLOAD_BYTES:
        raise errors.too_large(MAX_PAYLOAD_BYTES)
    try:
        text = raw.decode("utf-8")
        payload = json.loads(text)
    except (ValueError, RecursionError):
        payload, problem = None, "is not JSON"
    else:
        # A fingerprint of half a surrogate pair could never be stored (a 409, retried).
        problem = None if decode.storable(payload, text) else "holds a string that is not Unicode"
    if problem:
        integrations.refuse(integration, problem)
        raise _malformed(problem)
    return payload


def _malformed(problem: str) -> errors.ApiError:
    return errors.ApiError(400, errors.BAD_REQUEST, {"payload": [problem]})


def _receive(request: ApiRequest, token: str):
    integration = integrations.integration_for_token(token)
    ratelimit.check(f"integration#{integration.id}", int(integration.rate_limit_per_minute))
    # Posts to one integration take turns: two at once must not both open an incident.
    with turns.taken(integrations.turn_of(integration)):
        payload = _payload(integration, request.raw_body)
        try:
            receipt = integrations.receive(integration, payload)
        except MalformedPayload as refusal:
            raise _malformed(refusal.problem) from None
        integrations.follow_incident(integration, receipt)
    answer = schemas.AlertReceiptOut(
        components=[
            schemas.AlertReceiptComponentOut(
                component_id=component_id,
                status=outcome.status,
                changed=outcome.changed,
                reason=outcome.reason,
            )
            for component_id, outcome in receipt.outcomes.items()
        ],
        unmatched=len(receipt.unmatched),
    )
    return answer if receipt.matched else Reply(answer, 202)


# 202: nothing matched (the success body, recorded); Alertmanager retries anything but a 2xx.
ANSWERS = (202, 400, 404, 413, 429)


@router.route(
    integrations.RECEIVER_PATH,
    ["POST"],
    summary="Post alerts (Alertmanager v4, Grafana or generic, as the integration's kind); "
    "202 when no alert names a component of the page",
    response="AlertReceiptOut",
    authenticated=False,
    style=Style.CURRENT,
    answers=ANSWERS,
)
def receive_alerts(request: ApiRequest):
    return _receive(request, request.params["token"])


@router.route(
    integrations.BEARER_PATH,
    ["POST"],
    summary="Post alerts with the integration's token as `Authorization: Bearer <token>`",
    response="AlertReceiptOut",
    authenticated=False,
    style=Style.CURRENT,
    answers=ANSWERS,
)
def receive_alerts_with_bearer(request: ApiRequest):
    return _receive(request, auth.presented_key(request.headers, {}) or "")
