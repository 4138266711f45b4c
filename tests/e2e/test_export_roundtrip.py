"""A backup that moves: `make admin ARGS="export ..."` on one local stack writes a page to a
file, `import --from-file` on another stack reads it back, and the two pages are compared
through their APIs as the live import's test compares them (issue 35, item 5)."""

import json

import pytest

from tests.e2e import test_import_e2e as live
from tests.e2e.stack import wait_for
from tests.e2e.test_import_e2e import Page, assert_same, fill
from tests.webhook_sink import WebhookSink

pytestmark = pytest.mark.e2e
# The live import's two stacks, started side by side: the source and the target.
stacks = live.stacks


def test_a_page_exported_from_one_stack_is_imported_whole_into_another(stacks, tmp_path):
    source, target = stacks
    page_from = Page(source)
    with WebhookSink(status=503) as failing:
        fill(page_from, failing.url)
        quarantined = lambda: page_from.get("/subscribers", state="quarantined")  # noqa: E731
        assert wait_for(quarantined, timeout=45)
    backup = tmp_path / "page.json"

    exported = source.admin("export", "--page", page_from.id, "--to", str(backup))

    assert exported["exported"] == str(backup)
    assert backup.stat().st_mode & 0o777 == 0o600
    text = backup.read_text()
    assert page_from.key not in text
    states = {s["email"]: s["state"] for s in json.loads(text)["subscribers"]}
    assert states["left@x.io"] == "unsubscribed" and states["q@x.io"] == "quarantined"

    page_into = Page(target)
    arguments = ("--from-file", str(backup), "--organization", page_into.organization_id)
    target.admin("import", *arguments, "--into", page_into.id)
    copy = assert_same(page_from, page_into)
    assert {s["email"] for s in copy["unsubscribed"]} == {"left@x.io", "left-too@x.io"}

    before = page_into.everything()
    again = target.admin("import", *arguments, "--into", page_into.id)
    assert {counts["written"] for counts in again["imported"].values()} == {0}
    assert page_into.everything() == before
