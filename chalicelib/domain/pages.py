"""Pages: creation with its defaults, updates, and the uniqueness of subdomains and domains."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from chalicelib import clock, ids
from chalicelib.domain import contrast, errors, metrics_providers, unit_of_work
from chalicelib.domain.inputs import UNSET, Unset, given
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.base import plain_dict
from chalicelib.store.models import Claim, Page

COLOR_FIELDS = (
    "css_body_background_color",
    "css_font_color",
    "css_light_font_color",
    "css_greens",
    "css_yellows",
    "css_oranges",
    "css_blues",
    "css_reds",
    "css_border_color",
    "css_graph_color",
    "css_link_color",
    "css_no_data",
)
# Statuspage's palette, darkened where it fell short of WCAG AA on white (issue 32): each
# status colour and the links are text on the page (4.5:1), the graph a graphic (3:1).
DEFAULT_COLORS = {
    "css_body_background_color": "#ffffff",
    "css_font_color": "#333333",
    "css_light_font_color": "#6a737d",
    "css_greens": "#1e8449",
    "css_yellows": "#9a6700",
    "css_oranges": "#bc4c00",
    "css_blues": "#1f6fb2",
    "css_reds": "#c0392b",
    "css_border_color": "#ecf0f1",
    "css_graph_color": "#3498db",
    "css_link_color": "#1f6fb2",
    "css_no_data": "#b3bac5",
}
BACKGROUND = "css_body_background_color"
# The colours drawn on the page's background and the contrast AA asks of each; borders and
# the "no data" bars are decoration.
COLOR_CONTRASTS = {
    "css_font_color": contrast.AA_TEXT,
    "css_light_font_color": contrast.AA_TEXT,
    "css_link_color": contrast.AA_TEXT,
    # A component's status and an incident's title are written in them.
    "css_greens": contrast.AA_TEXT,
    "css_yellows": contrast.AA_TEXT,
    "css_oranges": contrast.AA_TEXT,
    "css_blues": contrast.AA_TEXT,
    "css_reds": contrast.AA_TEXT,
    "css_graph_color": contrast.AA_GRAPHIC,
}
DEFAULT_PROFILE = {
    "branding": "basic",
    "hidden_from_search": False,
    "viewers_must_be_team_members": False,
    "audience_specific": False,
    "allow_page_subscribers": True,
    "allow_incident_subscribers": True,
    "allow_email_subscribers": True,
    "allow_sms_subscribers": True,
    "allow_rss_atom_feeds": True,
    "allow_webhook_subscribers": True,
    "activity_score": 0,
    "time_zone": "Etc/UTC",
    **DEFAULT_COLORS,
}
DEFAULT_EMBED_CONFIG = {
    "position": "bottom-right",
    "incident_background_color": "#c0392b",
    "incident_text_color": "#ffffff",
    "maintenance_background_color": "#1f6fb2",
    "maintenance_text_color": "#ffffff",
}
# Written on the item itself (keys of the table), not in the profile map.
_CLAIMED = ("subdomain", "domain")
# Archived names of current fields.
_ALIASES = {"layout": "branding"}
# Archived image URLs set the image (stored and shown under its own name) and remember when.
IMAGES = {"hero_cover_url": "hero_cover", "transactional_logo_url": "transactional_logo"}
# Every image of a page, by its stored name: the logo, the logo readers in dark mode see
# instead (the API has no such field: the console sets it), the icon browsers show, the cover.
IMAGE_NAMES = ("transactional_logo", "dark_logo", "favicon_logo", "hero_cover")


@dataclass(frozen=True)
class PageInput:
    """A new page (a name at least), or what an update changes: every field is UNSET when
    not given. Null clears what a page may be without (`domain`, `url`, `support_url`,
    `notifications_from_email`, the images of `IMAGES`) and leaves the rest; `layout` is the
    archived name of `branding`."""

    name: str | None | Unset = UNSET
    domain: str | None | Unset = UNSET
    subdomain: str | None | Unset = UNSET
    url: str | None | Unset = UNSET
    branding: str | None | Unset = UNSET
    layout: str | None | Unset = UNSET
    page_description: str | None | Unset = UNSET
    headline: str | None | Unset = UNSET
    support_url: str | None | Unset = UNSET
    hidden_from_search: bool | None | Unset = UNSET
    viewers_must_be_team_members: bool | None | Unset = UNSET
    audience_specific: bool | None | Unset = UNSET
    allow_page_subscribers: bool | None | Unset = UNSET
    allow_incident_subscribers: bool | None | Unset = UNSET
    allow_email_subscribers: bool | None | Unset = UNSET
    allow_sms_subscribers: bool | None | Unset = UNSET
    allow_rss_atom_feeds: bool | None | Unset = UNSET
    allow_webhook_subscribers: bool | None | Unset = UNSET
    notifications_from_email: str | None | Unset = UNSET
    notifications_email_footer: str | None | Unset = UNSET
    time_zone: str | None | Unset = UNSET
    css_body_background_color: str | None | Unset = UNSET
    css_font_color: str | None | Unset = UNSET
    css_light_font_color: str | None | Unset = UNSET
    css_greens: str | None | Unset = UNSET
    css_yellows: str | None | Unset = UNSET
    css_oranges: str | None | Unset = UNSET
    css_blues: str | None | Unset = UNSET
    css_reds: str | None | Unset = UNSET
    css_border_color: str | None | Unset = UNSET
    css_graph_color: str | None | Unset = UNSET
    css_link_color: str | None | Unset = UNSET
    css_no_data: str | None | Unset = UNSET
    hero_cover_url: str | None | Unset = UNSET
    transactional_logo_url: str | None | Unset = UNSET


def _claim_name(kind: str, value: str) -> str:
    return f"{kind}#{value}"


def _claimed_by_other(kind: str, value: str, page_id: str | None) -> bool:
    try:
        claim = Claim.get(_claim_name(kind, value))
    except Claim.DoesNotExist:
        return False
    return claim.page_id != page_id


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40].strip("-")
    return slug or "page"


def _free_subdomain(name: str) -> str:
    base = _slug(name)
    candidate = base
    while _claimed_by_other("subdomain", candidate, None):
        candidate = f"{base}-{secrets.token_hex(2)}"
    return candidate


def _profile_changes(fields: PageInput) -> dict:
    """The profile entries a caller sets, in their stored names."""
    changes: dict = {}
    moment = clock.iso(clock.now())
    for name, value in given(fields).items():
        if name in _CLAIMED:
            continue
        if name in IMAGES:
            changes.update(_image_changes(IMAGES[name], value, moment))
            continue
        if value is None and name not in ("url", "support_url", "notifications_from_email"):
            continue  # an explicit null on a required setting changes nothing
        changes[_ALIASES.get(name, name)] = value
    return changes


def _image_changes(name: str, url: str | None, moment: str) -> dict:
    return {name: url, f"{name}_updated_at": moment if url else None}


def _check_claims(fields: PageInput, page_id: str | None) -> None:
    problems: dict[str, list[str]] = {}
    changed = given(fields)
    for kind in _CLAIMED:
        value = changed.get(kind)
        if value and _claimed_by_other(kind, value, page_id):
            problems[kind] = ["has already been taken"]
    if problems:
        raise errors.Invalid(problems)


def _stage(work: Work, page: Page, new_claims: dict, old_claims: dict) -> None:
    """The page with the names it takes and gives up, together; a name taken meanwhile or a
    page changed meanwhile is a conflict."""
    with work.together():
        for kind, value in new_claims.items():
            work.save(
                Claim(_claim_name(kind, value), page_id=page.id),
                condition=Claim.name.does_not_exist() | (Claim.page_id == page.id),
                intent=True,
            )
        for kind, value in old_claims.items():
            work.delete(
                Claim(_claim_name(kind, value)), condition=Claim.page_id == page.id, intent=True
            )
        work.save(page, intent=True)


def create_page(organization_id: str, fields: PageInput) -> Page:
    _check_claims(fields, None)
    moment = clock.now()
    named = given(fields)
    page = Page(
        ids.new_id(),
        organization_id=organization_id,
        subdomain=named.get("subdomain") or _free_subdomain(named.get("name") or ""),
        domain=named.get("domain"),
        profile={**DEFAULT_PROFILE, **_profile_changes(fields)},
        status_embed_config=dict(DEFAULT_EMBED_CONFIG),
        created_at=moment,
        updated_at=moment,
    )
    claims = {kind: getattr(page, kind) for kind in _CLAIMED if getattr(page, kind)}

    def change(work: Work) -> Page:
        _stage(work, page, claims, {})  # and its public files are published
        metrics_providers.stage_self_provider(work, page.id)  # every page has one (CONTRACT)
        return page

    return unit_of_work.run(page.id, change, attempts=1)


def update_page(page: Page, fields: PageInput) -> Page:
    new_claims, old_claims = _apply(page, fields)
    return _save_update(page, new_claims, old_claims)


def update_images(page: Page, urls: dict[str, str | None]) -> Page:
    """Set the page's images (`IMAGE_NAMES`) to `urls` (None removes one), each with when it
    changed, saved and published as any update of the page is."""
    unknown = set(urls) - set(IMAGE_NAMES)
    if unknown:
        raise errors.Invalid({name: ["is not an image of the page"] for name in sorted(unknown)})
    moment = clock.now()
    changes: dict = {}
    for name, url in urls.items():
        changes.update(_image_changes(name, url, clock.iso(moment)))
    page.profile = {**profile_of(page), **changes}
    page.updated_at = moment
    return _save_update(page, {}, {})


def _save_update(page: Page, new_claims: dict[str, str], old_claims: dict[str, str]) -> Page:
    updated = unit_of_work.run(
        page.id, lambda work: _stage(work, page, new_claims, old_claims) or page, attempts=1
    )
    for step in _after_update:
        step(updated)
    return updated


_after_update: list[Callable[[Page], None]] = []


def after_update(step: Callable[[Page], None]) -> None:
    """Run `step` with the page once an update is committed, before its caller answers:
    the published files of a page that stops being public are withdrawn then, not a publish
    later (`chalicelib.public.publish.withdraw_if_hidden`, which app.py registers)."""
    _after_update[:] = [step]


def delete_page(page: Page) -> None:
    """The page and the names it holds. What it showed the public goes with it: the change
    asks for a publish, which finds no page and removes its published files."""
    claims = {kind: getattr(page, kind) for kind in _CLAIMED if getattr(page, kind)}

    def change(work: Work) -> None:
        with work.together():
            for kind, value in claims.items():
                work.delete(Claim(_claim_name(kind, value)), condition=Claim.page_id == page.id)
            work.delete(page)

    unit_of_work.run(page.id, change, attempts=1)


def preview_page(page: Page, fields: PageInput) -> Page:
    """`page` as `update_page` would leave it, checked as it checks, but not saved (the
    console's preview of the public page)."""
    _apply(page, fields)
    return page


def _apply(page: Page, fields: PageInput) -> tuple[dict[str, str], dict[str, str]]:
    """Change `page` in memory; the names it takes and gives up."""
    _check_claims(fields, page.id)
    new_claims: dict[str, str] = {}
    old_claims: dict[str, str] = {}
    changed = given(fields)
    for kind in _CLAIMED:
        if kind not in changed:
            continue
        value = changed[kind]
        if kind == "subdomain" and not value:
            continue  # a page always keeps a subdomain
        current = getattr(page, kind)
        if value == current:
            continue
        if value:
            new_claims[kind] = value
        if current:
            old_claims[kind] = current
        setattr(page, kind, value)
    page.profile = {**profile_of(page), **_profile_changes(fields)}
    page.updated_at = clock.now()
    return new_claims, old_claims


@dataclass(frozen=True)
class ColorWarning:
    """A colour that falls short of WCAG AA on the page's background: saved all the same
    (the owner decides), and said in the answer."""

    field: str
    color: str
    background: str
    ratio: float
    minimum: float

    @property
    def message(self) -> str:
        return (
            f"{self.field} {self.color} has a contrast of {contrast.ratio_label(self.ratio)} "
            f"on the background {self.background}; WCAG AA asks {self.minimum:g}:1"
        )


def color_warnings(profile: dict, changed: Iterable[str] | None = None) -> list[ColorWarning]:
    """The colours of a page's `profile` below AA on its background; with `changed` (the
    fields a body sets), only those it concerns (a new background concerns every colour)."""
    colors = {
        name: value if contrast.is_color(value) else DEFAULT_COLORS[name]
        for name, value in {**DEFAULT_COLORS, **profile}.items()
        if name in DEFAULT_COLORS
    }
    concerned = set(COLOR_CONTRASTS) if changed is None else set(changed)
    if BACKGROUND in concerned:
        concerned |= set(COLOR_CONTRASTS)
    background = colors[BACKGROUND]
    found = []
    for name, minimum in COLOR_CONTRASTS.items():
        ratio = contrast.contrast_ratio(colors[name], background)
        if name in concerned and ratio < minimum:
            found.append(ColorWarning(name, colors[name], background, ratio, minimum))
    return found


def get_page(page_id: str) -> Page:
    try:
        return Page.get(page_id)
    except Page.DoesNotExist:
        raise errors.NotFound() from None


def find_page(page_id: str, *, consistent: bool = False) -> Page | None:
    """The page, or None when there is none (`consistent`: right after a write)."""
    try:
        return Page.get(page_id, consistent_read=consistent)
    except Page.DoesNotExist:
        return None


def profile_of(page: Page) -> dict:
    return plain_dict(page.profile)


def pages_of(organization_id: str) -> list[Page]:
    return list(Page.by_organization.query(organization_id))


def embed_config_of(page: Page) -> dict:
    return {**DEFAULT_EMBED_CONFIG, **plain_dict(page.status_embed_config)}


def update_embed_config(page: Page, changes: dict) -> Page:
    config = {**embed_config_of(page), **changes}
    moment = clock.now()

    def change(work: Work) -> Page:
        work.update(
            page,
            [Page.status_embed_config.set(config), Page.updated_at.set(moment)],
            versioned=False,
        )
        return page

    unit_of_work.run(page.id, change)
    page.status_embed_config, page.updated_at = config, moment
    return page


def webhook_secret_of(page: Page) -> str:
    """The page's webhook signing secret, made on first use."""
    if page.webhook_secret:
        return page.webhook_secret
    return rotate_webhook_secret(page, only_if_missing=True)


def rotate_webhook_secret(page: Page, *, only_if_missing: bool = False) -> str:
    secret = secrets.token_hex(32)
    condition = Page.webhook_secret.does_not_exist() if only_if_missing else None

    def change(work: Work) -> None:
        work.quiet()  # the public never sees it
        work.update(
            page, [Page.webhook_secret.set(secret)], condition, versioned=False, intent=True
        )

    try:
        unit_of_work.run(page.id, change, attempts=1)
    except errors.Conflict:
        # Another request made it first: use theirs.
        page.refresh(consistent_read=True)
        return page.webhook_secret
    page.webhook_secret = secret
    return page.webhook_secret
