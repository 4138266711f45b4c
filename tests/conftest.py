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
