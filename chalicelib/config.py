"""Settings read from the environment, named once.

`.chalice/config.json` sets them per stage; the local stack and the tests set them before the
first import of a model.
"""

import os

# A queue's message that failed this many receives moves to its dead-letter queue.
MAX_RECEIVES = 5


def stage() -> str:
    return os.environ.get("STAGE", "local")


def table_name(short_name: str) -> str:
    return f"statuspage-{stage()}-{short_name}"


def queue_name(short_name: str) -> str:
    return f"statuspage-{stage()}-{short_name}"


def region() -> str:
    return os.environ.get("AWS_DEFAULT_REGION") or os.environ.get("AWS_REGION") or "us-east-1"


def _count_setting(name: str, default: int) -> int:
    try:
        return max(0, int(os.environ.get(name, default)))
    except ValueError:
        return default


def subscribe_per_client_per_hour() -> int:
    """Anonymous subscriptions (the public form, the status API v2, an incident's) one client
    may make on one page in an hour; apart from `RATE_LIMIT_PER_MINUTE`, and on when it is
    0. 0 turns this one off."""
    return _count_setting("SUBSCRIBE_PER_CLIENT_PER_HOUR", 10)


def subscribe_per_page_per_hour() -> int:
    """Anonymous subscriptions one page takes in an hour from every client together."""
    return _count_setting("SUBSCRIBE_PER_PAGE_PER_HOUR", 500)


def rate_limit_per_minute() -> int:
    """Requests per API token on a 60 s rolling window; 0 turns the limit off."""
    try:
        return max(0, int(os.environ.get("RATE_LIMIT_PER_MINUTE", "60")))
    except ValueError:
        return 60


def public_base_url() -> str:
    """Where links in notifications and feeds point (the public page host); by default the
    address the local stack serves on."""
    default = f"http://127.0.0.1:{os.environ.get('PORT', '8000')}"
    return (os.environ.get("PUBLIC_BASE_URL") or default).rstrip("/")


def public_domain() -> str:
    """The domain at whose `{subdomain}.` every page is also served at the root, as Statuspage
    serves `{subdomain}.statuspage.io`. Locally `localhost`: browsers send `*.localhost` to
    this machine without DNS. Empty turns it off."""
    default = "localhost" if stage() in ("local", "test") else ""
    return os.environ.get("PUBLIC_DOMAIN", default).strip().strip(".").lower()


def notifications_sender() -> str:
    """The From address of notifications when a page sets none of its own."""
    return os.environ.get("NOTIFICATIONS_FROM", "notifications@statuspage.local")


def index_settle_seconds() -> float:
    """How long after a write DynamoDB's global indexes may still miss it: a public page built
    sooner is rebuilt by the next view. The local emulator's indexes never lag."""
    default = "0" if stage() in ("local", "test") else "3"
    return float(os.environ.get("INDEX_SETTLE_SECONDS", default))


def delivery_lease_seconds() -> int:
    """How long a delivery holds the recipients it claimed before another may take them over:
    as long as the delivery function may run (its timeout in `.chalice/config.json`)."""
    return int(os.environ.get("DELIVERY_LEASE_SECONDS", "120"))


def delivery_retry_seconds() -> tuple[float, ...]:
    """The pauses before a failed delivery's second and third attempts (CONTRACT.md: 3
    attempts within 30 s). `DELIVERY_RETRY_SECONDS="0.2,0.5"` shortens them for a test that
    only needs a failing endpoint quarantined."""
    try:
        pauses = tuple(
            float(part) for part in os.environ.get("DELIVERY_RETRY_SECONDS", "").split(",")
        )
    except ValueError:
        pauses = ()
    if len(pauses) != 2 or not all(0 <= pause <= 10 for pause in pauses):
        return (2.0, 5.0)
    return pauses


def site_bucket() -> str:
    """The S3 bucket of the published site on AWS; empty under `make run`, where it is a folder."""
    return os.environ.get("SITE_BUCKET", "")


def site_hosts_store() -> str:
    """The ARN of the CloudFront KeyValueStore that tells the CDN which page each host and
    `/s/{ref}` serves, and which of its paths are files (`chalicelib.sitestore.hosts`); empty
    under `make run`, whose front reads the manifests instead."""
    return os.environ.get("SITE_HOSTS_STORE", "")


def origin_verify_secret_id() -> str:
    """The ARN of the secret CloudFront sends the app in `X-Origin-Verify` on AWS, which
    proves a request came through the distribution (`chalicelib.http.ratelimit.client_of`);
    empty under `make run`, which has no CDN."""
    return os.environ.get("ORIGIN_VERIFY_SECRET_ID", "")


def dead_letter_queue_name(queue: str) -> str:
    """Where the messages of the queue named `queue` go after `MAX_RECEIVES` failed
    receives, on AWS and locally."""
    return queue + "-dlq"


def topic_name(short_name: str) -> str:
    return f"statuspage-{stage()}-{short_name}"


def ses_configuration_set() -> str:
    """The SES configuration set whose bounce and complaint events reach the app (AWS); empty
    under `make run`, whose emulated SES sends no events."""
    return os.environ.get("SES_CONFIGURATION_SET", "")


def local_visibility_seconds() -> int:
    """How long a received message stays hidden on the local stack before it comes back (AWS
    sets it per queue from the function's timeout, `infra/generate.py`)."""
    return int(os.environ.get("LOCAL_VISIBILITY_SECONDS", "30"))


def _positive_number(name: str) -> float | None:
    """A limit set in the environment as a positive number; unset, empty or not one: None."""
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return None
    return value if value > 0 else None


def ses_max_send_rate() -> float | None:
    """Emails a second the local emulator's SES takes (`SES_MAX_SEND_RATE`); None: any."""
    return _positive_number("SES_MAX_SEND_RATE")


def ses_max_24_hour_send() -> int | None:
    """Emails in any 24 hours the local emulator's SES takes (`SES_MAX_24_HOUR_SEND`)."""
    value = _positive_number("SES_MAX_24_HOUR_SEND")
    return None if value is None else int(value)


def sms_max_send_rate() -> float | None:
    """Text messages a second the local emulator's SNS publishes (`SMS_MAX_SEND_RATE`)."""
    return _positive_number("SMS_MAX_SEND_RATE")


def send_hold_seconds() -> int:
    """How long a channel waits, once SES's 24-hour quota or SNS's SMS spend limit refused a
    send, before it tries again (SES's advice: up to 10 minutes). `SEND_HOLD_SECONDS`: the
    tests shorten it."""
    try:
        return max(1, min(900, int(os.environ.get("SEND_HOLD_SECONDS", "600"))))
    except ValueError:
        return 600
