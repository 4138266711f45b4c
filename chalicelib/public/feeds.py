"""`history.rss` and `history.atom`: the page's recent incidents and maintenances, each with
its updates (a past one: its newest), as RSS 2.0 and Atom 1.0 documents (built as XML trees, so escaping is exact)."""

import xml.etree.ElementTree as ElementTree
from datetime import datetime
from email.utils import format_datetime

from chalicelib.domain.markdown_text import render_html
from chalicelib.web.labels import UPDATE_LABELS

ATOM_NAMESPACE = "http://www.w3.org/2005/Atom"
FEED_ITEMS = 25


def _entries(data: dict) -> list[dict]:
    """The newest incidents the snapshot holds: open ones whole, past ones with their newest
    update."""
    return data["incidents"][:FEED_ITEMS]


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _content(incident: dict) -> str:
    """The updates, newest first, as the HTML a feed reader shows."""
    parts = []
    for update in incident["incident_updates"]:
        label = UPDATE_LABELS.get(update["status"], update["status"])
        parts.append(
            f"<p><small>{format_datetime(_moment(update['display_at']), usegmt=True)}</small><br>"
            f"<strong>{label}</strong> - {render_html(update['body'])}</p>"
        )
    return "".join(parts)


def _text(parent: ElementTree.Element, tag: str, text: str, **attributes: str):
    element = ElementTree.SubElement(parent, tag, attributes)
    element.text = text
    return element


def _serialized(root: ElementTree.Element) -> str:
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(
        root, encoding="unicode"
    )


def rss(data: dict, site_url: str) -> str:
    page = data["page"]
    root = ElementTree.Element("rss", {"version": "2.0"})
    channel = ElementTree.SubElement(root, "channel")
    _text(channel, "title", f"{page['name']} Status - Incident History")
    _text(channel, "link", site_url)
    _text(channel, "description", f"Statuspage - {page['name']} Incident History")
    _text(channel, "pubDate", format_datetime(_moment(data["page"]["updated_at"]), usegmt=True))
    for entry in _entries(data):
        incident = entry["incident"]
        link = f"{site_url}/incidents/{incident['id']}"
        item = ElementTree.SubElement(channel, "item")
        _text(item, "title", incident["name"])
        _text(item, "description", _content(incident))
        _text(item, "pubDate", format_datetime(_moment(incident["created_at"]), usegmt=True))
        _text(item, "link", link)
        _text(item, "guid", link, isPermaLink="true")
    return _serialized(root)


def atom(data: dict, site_url: str) -> str:
    page = data["page"]
    ElementTree.register_namespace("", ATOM_NAMESPACE)

    def tag(name: str) -> str:
        return f"{{{ATOM_NAMESPACE}}}{name}"

    root = ElementTree.Element(tag("feed"), {"xml:lang": "en"})
    _text(root, tag("id"), f"{site_url}/history")
    ElementTree.SubElement(
        root, tag("link"), {"rel": "alternate", "type": "text/html", "href": site_url}
    )
    ElementTree.SubElement(
        root,
        tag("link"),
        {"rel": "self", "type": "application/atom+xml", "href": f"{site_url}/history.atom"},
    )
    _text(root, tag("title"), f"{page['name']} Status - Incident History")
    _text(root, tag("updated"), page["updated_at"])
    author = ElementTree.SubElement(root, tag("author"))
    _text(author, tag("name"), page["name"] or "Status page")
    for entry in _entries(data):
        incident = entry["incident"]
        link = f"{site_url}/incidents/{incident['id']}"
        item = ElementTree.SubElement(root, tag("entry"))
        _text(item, tag("id"), link)
        _text(item, tag("published"), incident["created_at"])
        _text(item, tag("updated"), incident["updated_at"])
        ElementTree.SubElement(
            item, tag("link"), {"rel": "alternate", "type": "text/html", "href": link}
        )
        _text(item, tag("title"), incident["name"])
        _text(item, tag("content"), _content(incident), type="html")
    return _serialized(root)
