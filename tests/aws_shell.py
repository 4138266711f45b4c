"""What a developer's shell may hold when it runs the local stage: settings for real AWS."""

# A developer's shell, pointed at real AWS: keys shaped like real ones (AWS's documentation
# examples), a token, a profile, endpoints (0.0.0.0 is not loopback, so it counts as "not
# this machine"; were it ever dialled, it would still stay on the machine).
REAL_LOOKING_AWS = {
    "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "AWS_SESSION_TOKEN": "FwoGZXIvYXdzEXAMPLETOKEN",
    "AWS_PROFILE": "production",
    "AWS_ENDPOINT_URL": "https://0.0.0.0:443",
    "AWS_ENDPOINT_URL_DYNAMODB": "https://0.0.0.0:443",
    "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true",
    "HTTPS_PROXY": "http://0.0.0.0:3128",
    "HTTP_PROXY": "http://0.0.0.0:3128",
}
