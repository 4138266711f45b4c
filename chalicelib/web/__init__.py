"""What every page this service renders for people stands on, the public status page and the
console alike, and the emails: the labels of statuses, times in the page's zone, the page's
colours checked, the Jinja2 environment, the security headers and the signed, expiring tokens
of their cookies. It knows nothing of the rooms above it."""
