"""The page's snapshot is the read model `chalicelib.views.snapshot` (the public views and the
notifications read it); `refresh` is named here too for the test fixtures that publish a page
(`tests/public/conftest.py`). Code imports it from the views."""

from chalicelib.views.snapshot import refresh

__all__ = ["refresh"]
