"""The public pages as HTML: Jinja2 templates, autoescaped, readable without JavaScript.

Everything a page's people wrote is escaped by the templates; Markdown (update bodies,
postmortems) goes through `render_html`, which sanitizes it. Jinja2 is imported and the
templates loaded on the first page rendered, not when the app is imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from chalicelib.domain import component_choices, component_groups
from chalicelib.domain.pages import DEFAULT_COLORS
from chalicelib.domain.sms_countries import COUNTRIES
from chalicelib.public import days, metric_charts, theme, uptime_bars
from chalicelib.views.content import IN_PROGRESS, UNRESOLVED, UPCOMING, is_open
from chalicelib.web import times
from chalicelib.web.colors import colors_of
from chalicelib.web.labels import LEVELS, STATUS_LABELS, UPDATE_LABELS
from chalicelib.web.templates import environment_for

if TYPE_CHECKING:
    from jinja2 import Environment

_HERE = Path(__file__).parent
BANNER_LEVELS = {"none": "up", "maintenance": "maintenance"}


@lru_cache(maxsize=1)
def _environment() -> Environment:
    from markupsafe import Markup

    environment = environment_for(_HERE / "templates")
    environment.globals.update(
        status_labels=STATUS_LABELS,
        update_labels=UPDATE_LABELS,
        levels=LEVELS,
        sms_countries=sorted(COUNTRIES.values(), key=lambda country: country.name),
        stylesheet=Markup((_HERE / "static" / "status.css").read_text()),
        # The pages' one script, inline and allowed by its hash (`security.for_html`): the
        # uptime bars' and charts' keyboard, touch and pointer reading, the history's filter.
        widgets_script=Markup((_HERE / "static" / "widgets.js").read_text()),
        # The subscribe forms' whole-group choice (group_choices.js), inline the same way.
        group_choices_script=Markup((_HERE / "static" / "group_choices.js").read_text()),
        is_open=is_open,
    )
    return environment


def favicon(page: dict | None) -> str:
    """The icon of a page without one of its own: a dot in the page's green (SVG, which every
    current browser shows as a favicon)."""
    color = colors_of(page)["css_greens"] if page else DEFAULT_COLORS["css_greens"]
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
        f'<circle cx="16" cy="16" r="14" fill="{color}"/></svg>'
    )


@dataclass(frozen=True)
class SubscriptionKind:
    name: str  # the kind of subscriber
    label: str  # "by ..."
    setting: str  # the page flag that allows it


SUBSCRIPTION_KINDS = (
    SubscriptionKind("email", "email", "allow_email_subscribers"),
    SubscriptionKind("sms", "text message", "allow_sms_subscribers"),
    SubscriptionKind("webhook", "webhook", "allow_webhook_subscribers"),
    # A chat channel's incoming webhook (Slack, Teams, Discord, Google Chat): a webhook too.
    SubscriptionKind("chat", "chat", "allow_webhook_subscribers"),
)


# How a subscription's notifications travel, as its page says "Notifications go ... {address}"
# (a chat channel's: "to Slack (hooks.slack.com)").
DELIVERY = {"email": "by email to", "sms": "by text message to", "webhook": "as webhooks to"}
INCIDENT_SUBSCRIPTION_KINDS = ("email", "sms")


def subscription_kinds(page: dict) -> list[SubscriptionKind]:
    """The ways a reader may subscribe to the whole page, as the page allows."""
    allow = page["allow"]
    if not allow["allow_page_subscribers"]:
        return []
    return [kind for kind in SUBSCRIPTION_KINDS if allow[kind.setting]]


def incident_subscription_kinds(page: dict) -> list[SubscriptionKind]:
    """The ways a reader may follow one incident from its page, as the page allows: by email
    or text message (as Statuspage's incident pages offer)."""
    allow = page["allow"]
    if not allow["allow_incident_subscribers"]:
        return []
    return [
        kind
        for kind in SUBSCRIPTION_KINDS
        if kind.name in INCIDENT_SUBSCRIPTION_KINDS and allow[kind.setting]
    ]


def alternatives(words: list[str]) -> str:
    """`email, text message or webhook`."""
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])} or {words[-1]}"


def chosen_components(data: dict, chosen: list[str] | None, whole: object) -> list[str]:
    """The components a reader's form chose: those checked, and every member of each group
    it chose whole (`whole_groups[]`, whose members the form's script checks)."""
    return component_choices.with_whole_groups(chosen, whole, data["components"])


def _common(data: dict, base: str) -> dict:
    page = data["page"]
    colors = colors_of(page)
    kinds = subscription_kinds(page)
    return {
        "subscribe": {"kinds": kinds, "ways": alternatives([kind.label for kind in kinds])},
        "page": page,
        "colors": colors,
        "theme": theme.theme_of(colors),
        "base": base,
        "local_time": times.time_formatter(page["time_zone"]),
        "day_label": times.label,
    }


@dataclass
class ComponentRow:
    component: dict
    status: str
    bars: uptime_bars.UptimeBars | None = None
    members: list[ComponentRow] = field(default_factory=list)


def _visible(component: dict) -> bool:
    return not (component.get("only_show_if_degraded") and component["status"] == "operational")


def component_rows(data: dict, now: datetime) -> list[ComponentRow]:
    """Top-level components and groups in page order, each group with its members."""
    time_zone = data["page"]["time_zone"]
    listed = data["components"]
    group_ids = {component["id"] for component in listed if component["group"]}

    def row(component: dict) -> ComponentRow:
        history = data["uptime"].get(component["id"])
        bars = uptime_bars.bars_of(history, time_zone, now) if history else None
        return ComponentRow(component, component["status"], bars)

    rows = []
    for component in listed:
        if component["group"]:
            members = [
                row(member)
                for member in listed
                if member.get("group_id") == component["id"] and _visible(member)
            ]
            if members:
                shown = component_groups.shown_status(m.status for m in members)
                rows.append(ComponentRow(component, shown, None, members))
        elif component.get("group_id") not in group_ids and _visible(component):
            rows.append(row(component))
    return rows


def _entries(data: dict, state: str) -> list[dict]:
    return [entry for entry in data["incidents"] if entry["state"] == state]


def status_page(
    data: dict,
    base: str,
    now: datetime,
    charts: list[metric_charts.Chart] | None = None,
    period: str = metric_charts.DEFAULT_PERIOD,
) -> str:
    """The page; `charts`: its displayed metrics over `period`."""
    page = data["page"]
    today = days.today(page["time_zone"], now)
    indicator = data["status"]["indicator"]
    upcoming = sorted(
        _entries(data, UPCOMING), key=lambda entry: entry["incident"].get("scheduled_for") or ""
    )
    return (
        _environment()
        .get_template("status_page.html")
        .render(
            **_common(data, base),
            status=data["status"],
            banner_level=BANNER_LEVELS.get(indicator, indicator),
            rows=component_rows(data, now),
            unresolved=_entries(data, UNRESOLVED),
            in_progress=_entries(data, IN_PROGRESS),
            upcoming=upcoming,
            days=days.past_days(data["incidents"], page["time_zone"], today),
            today=today,
            charts=charts or [],
            metric_period=period,
            metric_periods=metric_charts.PERIOD_LABELS,
            chart_size=metric_charts.SIZE,
            phone_days=uptime_bars.PHONE_DAYS,
        )
    )


def incident_page(
    data: dict,
    entry: dict,
    base: str,
    chosen: str | None = None,
    values: dict | None = None,
    problems: dict[str, list[str]] | None = None,
) -> str:
    """An incident or maintenance: its updates newest first, what it affects, its postmortem,
    and while it is open the form to follow it (`chosen`, `values` and `problems`: that form
    sent back to be corrected)."""
    kinds = incident_subscription_kinds(data["page"]) if is_open(entry) else []
    template = _environment().get_template("incident_page.html")
    return template.render(
        **_common(data, base),
        entry=entry,
        follow={
            "kinds": kinds,
            "chosen": chosen,
            "values": values or {},
            "problems": problems or {},
        },
    )


def history_choices(data: dict) -> list[dict]:
    """What the history's filter offers, in page order: each group (any of its members) and
    each component, named with its group; `ids`: the components an incident must name."""
    listed = data["components"]
    group_ids = {component["id"] for component in listed if component["group"]}
    choices = []
    for component in listed:
        if component["group"]:
            members = [member for member in listed if member.get("group_id") == component["id"]]
            ids = [component["id"], *(member["id"] for member in members)]
            choices.append({"id": component["id"], "label": component["name"], "ids": ids})
            choices += [
                {
                    "id": member["id"],
                    "label": f"{component['name']} / {member['name']}",
                    "ids": [member["id"]],
                }
                for member in members
            ]
        elif component.get("group_id") not in group_ids:
            choices.append(
                {"id": component["id"], "label": component["name"], "ids": [component["id"]]}
            )
    return choices


def history_page(
    data: dict,
    base: str,
    period: days.Period,
    entries: list[dict],
    now: datetime,
    listed: days.HistoryEntries | None = None,
) -> str:
    """One page of a period of the history: its months newest first (those still ahead only
    when a maintenance is scheduled in them), each incident and maintenance in brief with a
    link to its page; a pager to the period before and, once it has begun, after; links to
    the period's older incidents (`listed.more`) and back to its newest; a filter by
    component (the page's script: the published file is the same for every reader)."""
    time_zone = data["page"]["time_zone"]
    today = days.today(time_zone, now)
    # A page of a busy period shows the months its incidents are in, and those between.
    newest = _month_of(entries[0], time_zone) if listed and listed.before and entries else None
    oldest = _month_of(entries[-1], time_zone) if listed and listed.more and entries else None
    months = []
    for first in period.month_starts():
        if (newest and first > newest) or (oldest and first < oldest):
            continue
        in_month = days.in_month(entries, time_zone, first)
        if first <= today or in_month:
            label = first.strftime("%B %Y")
            parameter = days.Period(first.year, first.month, 1).parameter
            months.append({"label": label, "parameter": parameter, "entries": in_month})
    template = _environment().get_template("history_page.html")
    return template.render(
        **_common(data, base),
        title=period.title,
        months=months,
        single_month=period.months == 1,
        older=period.before() if period.before().year >= days.EARLIEST_YEAR else None,
        newer=None if period.after().starts_after(today) else period.after(),
        choices=history_choices(data),
        period=period,
        later_page=bool(listed and listed.before),
        more=listed.more if listed else None,
    )


def _month_of(entry: dict, time_zone: str) -> date:
    return times.local(days.started(entry), time_zone).date().replace(day=1)


def subscribe_page(
    data: dict,
    base: str,
    chosen: SubscriptionKind,
    values: dict | None = None,
    problems: dict[str, list[str]] | None = None,
) -> str:
    """The reader's subscription form for one kind (`values` and `problems`: a form sent
    back to be corrected)."""
    return (
        _environment()
        .get_template("subscribe_page.html")
        .render(
            **_common(data, base),
            chosen=chosen,
            choices=component_choices.sections(data["components"]),
            values=values or {},
            problems=problems or {},
        )
    )


def subscription_page(
    data: dict, base: str, subscription: dict, manage_path: str, unsubscribe_path: str, saved=False
) -> str:
    """What a subscriber manages from the link in every notification: its components, and a
    way out."""
    choices = [] if subscription["incident_id"] else component_choices.sections(data["components"])
    return (
        _environment()
        .get_template("subscription_page.html")
        .render(
            **_common(data, base),
            subscriber=subscription,
            address=subscription["address"],
            delivery=DELIVERY.get(subscription["kind"], "to"),
            choices=choices,
            manage_path=manage_path,
            unsubscribe_path=unsubscribe_path,
            saved=saved,
        )
    )


def unsubscribe_page(data: dict, base: str, address: str, unsubscribe_path: str) -> str:
    """The question behind an email's unsubscribe link: only its button unsubscribes."""
    template = _environment().get_template("unsubscribe_page.html")
    return template.render(
        **_common(data, base), address=address, unsubscribe_path=unsubscribe_path
    )


def notice_page(data: dict, base: str, title: str, message: str, link: dict | None = None) -> str:
    """A page's short answer to a reader (subscribed, confirmed, unsubscribed)."""
    template = _environment().get_template("notice_page.html")
    return template.render(**_common(data, base), title=title, message=message, link=link)


def error_page(title: str, message: str) -> str:
    return _environment().get_template("error_page.html").render(title=title, message=message)


def sign_in_page(data: dict, base: str) -> str:
    """What an audience-specific page shows a reader who is not signed in: the form that
    emails a sign-in link (and nothing of the status)."""
    template = _environment().get_template("sign_in_page.html")
    return template.render(**{**_common(data, base), "subscribe": {"kinds": []}})
