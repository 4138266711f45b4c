"""The public status page: HTML, the status API v2, feeds and the embed script.

Every view reads one precomputed snapshot of its page (`chalicelib.views.snapshot`), so
a view costs one DynamoDB read however many components and incidents the page has.
"""
