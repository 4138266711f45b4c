"""Secrets Manager: the one place that reads a secret's value, once per process.

On AWS the template generates the secrets and tells each function their ARNs
(`infra/generate.py`): the signing key (`chalicelib.domain.signing`) and the origin's secret
CloudFront sends the app (`chalicelib.http.ratelimit`). A value is kept until the process
ends, so a Lambda instance asks once per cold start; a rotated secret is read by the next.
"""

from functools import lru_cache

import boto3

from chalicelib import config


@lru_cache(maxsize=8)
def secret_value(secret_id: str) -> str:
    """The current `SecretString` of the secret named or ARN'd `secret_id`."""
    client = boto3.client("secretsmanager", region_name=config.region())
    return client.get_secret_value(SecretId=secret_id)["SecretString"]
