"""Metrics providers: the five kinds (SPEC 2.13) and the ones linked to a page.

Every page has one `Self` provider, under which its custom metrics live, from its creation;
its id is derived from the page's, so a page made before providers existed gets it on first
use with a conditional put that two concurrent readers cannot double.
"""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib import clock, ids
from chalicelib.domain import credentials, errors, unit_of_work
from chalicelib.domain.inputs import UNSET, Unset, given, or_none
from chalicelib.domain.unit_of_work import Work
from chalicelib.store.base import plain_dict
from chalicelib.store.metrics import Metric, MetricsProvider

SELF = "Self"
# In Statuspage's order; the third-party providers' fields are secrets, kept only as hashes.
REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    "Pingdom": ("email", "password", "application_key"),
    "NewRelic": ("api_key",),
    "Librato": ("email", "api_token"),
    "Datadog": ("api_key", "application_key"),
    SELF: (),
}
SECRET_FIELDS = ("email", "password", "api_key", "api_token", "application_key")


@dataclass(frozen=True)
class ProviderInput:
    """A provider to link (its type, and the credentials the type requires), or what an
    update changes: None leaves a field as it is; `metric_base_uri` and `disabled` are UNSET
    when not given (null clears the URI)."""

    type: str | None = None
    email: str | None = None
    password: str | None = None
    api_key: str | None = None
    api_token: str | None = None
    application_key: str | None = None
    metric_base_uri: str | None | Unset = UNSET
    disabled: bool | None | Unset = UNSET


def available() -> list[dict]:
    return [
        {"type": kind, "required_fields": list(fields)} for kind, fields in REQUIRED_FIELDS.items()
    ]


def self_provider_id(page_id: str) -> str:
    return f"{page_id}self"


def new_self_provider(page_id: str) -> MetricsProvider:
    moment = clock.now()
    return MetricsProvider(
        page_id, self_provider_id(page_id), type=SELF, created_at=moment, updated_at=moment
    )


def stage_self_provider(work: Work, page_id: str) -> MetricsProvider:
    """The page's `Self` provider, staged on `work` unless it exists already."""
    provider = new_self_provider(page_id)
    work.save(provider, condition=MetricsProvider.id.does_not_exist())
    return provider


def providers_of(page_id: str) -> list[MetricsProvider]:
    providers = list(MetricsProvider.query(page_id))
    if not any(provider.type == SELF for provider in providers):
        providers.insert(0, _ensure_self_provider(page_id))
    return providers


def _ensure_self_provider(page_id: str) -> MetricsProvider:
    def change(work: Work) -> MetricsProvider:
        work.quiet()
        try:
            return MetricsProvider.get(page_id, self_provider_id(page_id))
        except MetricsProvider.DoesNotExist:
            return stage_self_provider(work, page_id)

    return unit_of_work.run(page_id, change)


def get_provider(page_id: str, provider_id: str) -> MetricsProvider:
    if provider_id == self_provider_id(page_id):
        return next(p for p in providers_of(page_id) if p.type == SELF)
    try:
        return MetricsProvider.get(page_id, provider_id)
    except MetricsProvider.DoesNotExist:
        raise errors.NotFound() from None


def _secrets(fields: ProviderInput) -> dict[str, str]:
    return {
        name: credentials.password_hash(getattr(fields, name))
        for name in SECRET_FIELDS
        if getattr(fields, name)
    }


def create_provider(page_id: str, fields: ProviderInput) -> MetricsProvider:
    if fields.type not in REQUIRED_FIELDS:
        raise errors.invalid("type", f"must be one of {', '.join(REQUIRED_FIELDS)}")
    if fields.type == SELF:
        raise errors.invalid("type", "a page has exactly one Self provider, made with the page")
    missing = {
        name: ["is required by this provider"]
        for name in REQUIRED_FIELDS[fields.type]
        if not getattr(fields, name)
    }
    if missing:
        raise errors.Invalid(missing)
    moment = clock.now()
    provider = MetricsProvider(
        page_id,
        ids.new_id(),
        type=fields.type,
        disabled=bool(fields.disabled),
        metric_base_uri=or_none(fields.metric_base_uri),
        credentials=_secrets(fields),
        created_at=moment,
        updated_at=moment,
    )

    def change(work: Work) -> MetricsProvider:
        work.quiet()
        work.save(provider)
        return provider

    return unit_of_work.run(page_id, change)


def update_provider(page_id: str, provider_id: str, fields: ProviderInput) -> MetricsProvider:
    def change(work: Work) -> MetricsProvider:
        work.quiet()
        provider = get_provider(page_id, provider_id)
        if fields.type is not None and fields.type != provider.type:
            raise errors.invalid("type", "cannot be changed; link a new provider instead")
        secrets = _secrets(fields)
        if secrets and provider.type == SELF:
            raise errors.invalid("type", "the Self provider takes no credentials")
        for name, value in given(fields).items():
            if name in ("metric_base_uri", "disabled"):
                setattr(provider, name, value)
        if secrets:
            provider.credentials = {**plain_dict(provider.credentials), **secrets}
        provider.updated_at = work.moment
        work.save(provider)
        return provider

    return unit_of_work.run(page_id, change)


def delete_provider(page_id: str, provider_id: str) -> MetricsProvider:
    """Unlinks the provider and deletes its metrics (provider-fed metrics hold no points)."""

    def change(work: Work) -> MetricsProvider:
        provider = get_provider(page_id, provider_id)
        if provider.type == SELF:
            raise errors.Conflict()
        work.delete(provider)
        for metric in Metric.query(page_id):
            if metric.metrics_provider_id == provider.id:
                work.delete(metric)
        return provider

    return unit_of_work.run(page_id, change)
