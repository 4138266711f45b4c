"""The console shares with the public page only what stands below both (`chalicelib/web`: the
labels, the Jinja2 environment, the security headers, the signed tokens); of the public page
itself it takes only what it shows of that page, its preview and its metric charts."""

from tests.unit.test_layers import imports

PUBLIC_PAGE_SHOWN = {"chalicelib.public.preview", "chalicelib.public.metric_charts"}


def test_the_console_takes_from_the_public_page_only_its_preview_and_charts():
    taken = [
        str(each)
        for each in imports()
        if each.room == "console"
        and each.target_room == "public"
        and each.target not in PUBLIC_PAGE_SHOWN
    ]
    assert not taken, "the console takes more of the public page:\n" + "\n".join(taken)
