"""Settings every test shares, set before the app and the models are imported, and the
in-process tests' emulated AWS."""

import atexit
import gc
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import pytest

# Its assertions compare both mottos' answers: shown in full when they differ.
pytest.register_assert_rewrite("tests.moto_differential")

os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ["STAGE"] = "test"
os.environ["RATE_LIMIT_PER_MINUTE"] = "0"
# The tests' sinks and sources listen on loopback: allowed only by this explicit setting.
os.environ["ALLOW_PRIVATE_TARGETS"] = "1"
os.environ.pop("AWS_ENDPOINT_URL", None)
# A test starts with empty queues (tests/api/conftest.py): moto's setting that lets a queue be
# purged again within AWS's minute.
os.environ["MOTO_SQS_ENFORCE_STRICT_QUEUE_PURGE_BEHAVIOUR"] = "false"

if os.environ.get("AWS_USES_DIR"):  # what each function uses of AWS (`make test`, `make uses`)
    from tests import aws_uses

    aws_uses.install(Path(os.environ["AWS_USES_DIR"]))


def _scratch_in_memory(folder: str = "/dev/shm", room: int = 6 * 2**30) -> None:
    """Scratch files (the stacks' data, the published sites, the browsers' profiles) go to
    memory when the machine has room and no TMPDIR was chosen: the in-process tests alone
    publish ~1 GB a worker (140,000 files), each written in ~190 us on this machine's disk and
    ~35 us in memory. What the durability tests stop is a process, not the machine: its
    files outlive it in memory as on disk."""
    if "TMPDIR" in os.environ or not os.access(folder, os.W_OK):
        return
    stats = os.statvfs(folder)
    if stats.f_bavail * stats.f_frsize >= room:
        os.environ["TMPDIR"] = folder  # for the stacks and browsers the tests start, too
        tempfile.tempdir = None


_scratch_in_memory()
# The published site of in-process tests: a folder of each test process's own, removed when
# the process ends (left behind, a run's sites took ~2 GB).
os.environ["SITE_DIR"] = tempfile.mkdtemp(prefix="statuspage-site-")
atexit.register(shutil.rmtree, os.environ["SITE_DIR"], ignore_errors=True)

# The end-to-end modules mostly wait on a stack, while the in-process ones keep a core busy: the
# run is quickest with one worker on each kind. So the modules are queued with the two kinds
# alternating by their share of expected time, the longest end-to-end ones first (a long one
# left to the end would run alone). `make test` keeps this order (`--no-loadscope-reorder`).
# Seconds measured on the 2-core machine; a figure gone stale only orders the run less well.
E2E_SECONDS = {
    "test_console_month": 34,
    "test_durability": 29,
    "test_import_e2e": 21,
    "test_alerts_e2e": 20,
    "test_console_browser": 19,
    "test_month_two_layout": 25,
    "test_restart_answers": 17,
    "test_durability_stops": 15,
    "test_published_site_e2e": 14,
    "test_regions_drill": 14,
    "test_send_limits_e2e": 14,
    "test_kill_mid_fan_out": 13,
    "test_third_party_e2e": 13,
    "test_public_page_browser": 13,
    "test_public_page_widgets": 13,
    "test_public_page_times": 15,
    "test_notifications_e2e": 12,
    "test_export_roundtrip": 12,
    "test_local_stack": 15,
    "test_journal_damage": 11,
    "test_public_page_axe": 10,
    "test_redrive": 9,
    "test_request_bodies": 8,
    "test_slow_clients": 8,
    "test_chalice_local": 6,
    "test_secret_logging": 5,
    "test_site_server": 5,
    "test_checks_e2e": 5,
    "test_local_outbox": 3,
    "test_chat_e2e": 2,
}
E2E_OTHER_SECONDS = 10
# An in-process module is expected to take its number of tests times this, but for those whose
# tests are far cheaper or dearer than most.
IN_PROCESS_SECONDS_PER_TEST = 0.1
IN_PROCESS_SECONDS = {
    "test_null_fields": 9,
    "test_fuzz": 15,
    "test_fuzz_reference": 4,
    "test_access_and_domains": 2,
    "test_moto_patches_differential": 9,
    "test_moto_queue_costs": 5,
    "test_integrations": 15,
    "test_display_names": 0.1,
    "test_notification_scale": 7,
    "test_organization_subscriber_bounds": 7,
    "test_export_roundtrip": 6,
    "test_bucket_publish": 5,
    "test_published_site": 5,
    "test_tenant_isolation": 5,
    "test_caching_and_reads": 4,
    "test_audience_pages": 2,
    "test_status_api": 4,
    "test_subscriber_scale": 4,
    "test_metric_charts": 3,
    "test_bounded_cost": 3,
}


def _unique_node_ids(items) -> None:
    """Under pytest 9, every operation's test of a schemathesis `schema.parametrize()` has the
    same node id, the function's (schemathesis sets the attribute older pytests read); xdist
    schedules by node id, so under `--dist loadfile` all of a fuzz module's operations but
    one were dropped unseen. Each gets its own, from its name (pytest's private `_id`), and
    a node id still shared stops the run rather than drop a test."""
    from _pytest.nodeid import coerce_node_id

    counted = Counter(item.nodeid for item in items)
    for item in items:
        if counted[item.nodeid] > 1:
            item._id = coerce_node_id(f"{item.nodeid.split('::')[0]}::{item.name}")
    counted = Counter(item.nodeid for item in items)
    twice = sorted(node for node, count in counted.items() if count > 1)
    if twice:
        raise pytest.UsageError(f"tests share a node id (xdist would run one of them): {twice}")


def pytest_collection_modifyitems(items):
    _unique_node_ids(items)
    by_file: dict[str, list] = {}
    for item in items:
        by_file.setdefault(item.nodeid.split("::")[0], []).append(item)

    def expected(path: str) -> float:
        name = path.rsplit("/", 1)[-1].removesuffix(".py")
        if "/e2e/" in path:
            return E2E_SECONDS.get(name, E2E_OTHER_SECONDS)
        return IN_PROCESS_SECONDS.get(name, IN_PROCESS_SECONDS_PER_TEST * len(by_file[path]))

    waiting = sorted((path for path in by_file if "/e2e/" in path), key=expected, reverse=True)
    busy = [path for path in by_file if "/e2e/" not in path]
    # Each kind is queued at its own pace, as a share of its total: there is more end-to-end
    # time than in-process, and queued second-for-second the last minute of the run was
    # end-to-end modules on both workers, waiting with a core idle.
    all_waited = sum(map(expected, waiting)) or 1.0
    all_worked = sum(map(expected, busy)) or 1.0
    order, waited, worked = [], 0.0, 0.0
    while waiting or busy:
        if waiting and (waited / all_waited <= worked / all_worked or not busy):
            order.append(waiting.pop(0))
            waited += expected(order[-1])
        else:
            order.append(busy.pop(0))
            worked += expected(order[-1])
    items[:] = [item for path in order for item in by_file[path]]


# One emulated AWS per test process for the API's, the public page's and the console's tests
# (each directory had a fixture of its own, so moto was started again inside itself and every
# table made again, twice a worker).
@pytest.fixture(scope="session")
def aws():
    from moto import mock_aws

    with mock_aws():
        from chalicelib.local import moto_costs, send_limits
        from chalicelib.local.emulator import create_resources

        moto_costs.install()
        send_limits.install()  # SES unlimited, as the local stack's: moto alone says 1 a second
        _atomic_dynamodb_writes()
        create_resources()
        # What the session made (modules, the emulator's tables) lives as long as it: no
        # full collection needs to walk it again (they took 0.2-0.4 s each).
        gc.collect()
        gc.freeze()
        yield


def _atomic_dynamodb_writes() -> None:
    """Each DynamoDB write whole before the next, as DynamoDB does and as the local stack's
    emulator does (its journal applies writes under one lock). Moto in process checks a
    condition and writes without a lock: two threads could both pass one condition (two
    readers opening one sign-in link both signed in, once in a loaded run)."""
    import threading

    from moto.dynamodb.models import DynamoDBBackend

    lock = threading.RLock()
    writes = ("put_item", "update_item", "delete_item", "transact_write_items")
    writes += ("batch_write_item", "execute_transaction")
    for name in writes:
        original = getattr(DynamoDBBackend, name)

        def serialized(self, *args, _original=original, **kwargs):
            with lock:
                return _original(self, *args, **kwargs)

        setattr(DynamoDBBackend, name, serialized)


@pytest.fixture(scope="session", autouse=True)
def cheap_passwords():
    """In-process tests hash passwords at scrypt's least cost: at the service's (30 ms a
    hash or a check) the sign-ins and the users made took 8% of their time. The
    local stack, and so every end-to-end test, hashes at the service's cost."""
    from chalicelib.domain import credentials

    credentials._scrypt = {**credentials.PASSWORD_COST, "n": 2**4}
    yield
    credentials._scrypt = dict(credentials.PASSWORD_COST)


@pytest.fixture(scope="session")
def chalice_app(aws):
    from app import app

    return app
