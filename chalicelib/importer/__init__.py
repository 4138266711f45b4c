"""Bring a page along: read a page through a Statuspage-compatible v1 API and write it into
a page of ours (`python -m chalicelib.admin import ...`)."""
