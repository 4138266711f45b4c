"""Settings every test shares, set before the app and the models are imported."""

import os
import tempfile

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
# The published site of in-process tests: a folder of each test process's own.
os.environ["SITE_DIR"] = tempfile.mkdtemp(prefix="statuspage-site-")

# The end-to-end modules mostly wait on a stack, while the in-process ones keep a core busy: the
# run is quickest with one worker on each kind. So the modules are queued with the two kinds
# alternating by expected time, the longest end-to-end ones first (a long one left to the end
# would run alone). `make test` keeps this order (`--no-loadscope-reorder`). Seconds measured
# on the 2-core machine; a figure gone stale only orders the run less well.
E2E_SECONDS = {
    "test_durability": 45,
    "test_console_month": 40,
    "test_notifications_e2e": 27,
    "test_durability_stops": 26,
    "test_import_e2e": 25,
    "test_console_browser": 24,
    "test_third_party_e2e": 21,
    "test_local_stack": 21,
    "test_journal_damage": 20,
    "test_published_site_e2e": 20,
    "test_export_roundtrip": 19,
}
E2E_OTHER_SECONDS = 10
IN_PROCESS_SECONDS_PER_TEST = 0.08


def pytest_collection_modifyitems(items):
    by_file: dict[str, list] = {}
    for item in items:
        by_file.setdefault(item.nodeid.split("::")[0], []).append(item)

    def expected(path: str) -> float:
        if "/e2e/" in path:
            return E2E_SECONDS.get(path.rsplit("/", 1)[-1].removesuffix(".py"), E2E_OTHER_SECONDS)
        return IN_PROCESS_SECONDS_PER_TEST * len(by_file[path])

    waiting = sorted((path for path in by_file if "/e2e/" in path), key=expected, reverse=True)
    busy = [path for path in by_file if "/e2e/" not in path]
    order, waited, worked = [], 0.0, 0.0
    while waiting or busy:
        if waiting and (waited <= worked or not busy):
            order.append(waiting.pop(0))
            waited += expected(order[-1])
        else:
            order.append(busy.pop(0))
            worked += expected(order[-1])
    items[:] = [item for path in order for item in by_file[path]]
