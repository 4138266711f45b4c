"""Settings every test shares, set before the app and the models are imported."""

import os

os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ["STAGE"] = "test"
os.environ["RATE_LIMIT_PER_MINUTE"] = "0"
os.environ.pop("AWS_ENDPOINT_URL", None)
