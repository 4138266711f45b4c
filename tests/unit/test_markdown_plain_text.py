"""Markdown rendered to plain text, for the text part of emails (issue 32, item 12)."""

from chalicelib.domain.markdown_text import render_text


def test_emphasis_is_read_as_its_words():
    assert render_text("**18:10 UTC** we *restarted* the `api`") == "18:10 UTC we restarted the api"


def test_links_keep_their_url_and_autolinks_are_not_doubled():
    assert render_text("see [the runbook](https://runbook.example/db?a=1&b=2)") == (
        "see the runbook (https://runbook.example/db?a=1&b=2)"
    )
    assert render_text("<https://status.example.com>") == "https://status.example.com"
    assert render_text("<ops@example.com>") == "ops@example.com"
    assert render_text("[write](mailto:ops@example.com)") == "write (mailto:ops@example.com)"


def test_a_script_url_is_not_kept_as_a_link():
    assert render_text("[click](javascript:alert(1))") == "click"


def test_paragraphs_headings_and_line_breaks():
    text = "# Impact\n\nFirst line  \nsecond line\n\nNext paragraph"
    assert render_text(text) == "Impact\n\nFirst line\nsecond line\n\nNext paragraph"


def test_lists_nested_and_numbered():
    text = "- one\n- two\n    1. first\n    2. second\n- three"
    assert render_text(text) == "- one\n- two\n  1. first\n  2. second\n- three"


def test_quotes_and_code_blocks():
    text = "Before\n\n> quoted *line*\n>\n> again\n\n    code  kept\n      as is\n\nAfter"
    assert render_text(text) == (
        "Before\n\n> quoted line\n>\n> again\n\n    code  kept\n      as is\n\nAfter"
    )


def test_tables_rules_and_images():
    text = "| a | b |\n|---|---|\n| 1 | 2 |\n\n***\n\n![the graph](https://img.example/g.png)"
    assert render_text(text) == "a | b\n1 | 2\n\n----\n\nthe graph"


def test_entities_and_raw_html_read_as_text():
    assert render_text("a &amp; b &lt;c&gt; <b>bold</b><script>alert(1)</script>") == (
        "a & b <c> bold"
    )


def test_empty_and_plain_text():
    assert render_text("") == ""
    assert render_text("All good now.") == "All good now."
