"""What every page this service renders for people stands on, the public status page and the
console alike: the labels of statuses, the Jinja2 environment, the security headers and the
signed, expiring tokens of their cookies. It knows nothing of either room above it."""
