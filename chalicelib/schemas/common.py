"""Field types that validate the way the contract says, shared by every schema."""

import re
import zoneinfo
from functools import lru_cache
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field
from pydantic import BaseModel as PydanticModel

_COLOR = re.compile(r"^#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$")
# The local part in printable ASCII ("!" to "?" and "A" to "~": all but "@" and spaces): SES,
# like SMTP without extensions, cannot send to any other. The domain may be international.
_EMAIL = re.compile(r"^[!-?A-~]+@[^@\s]+\.[^@\s.]+$")
_SUBDOMAIN = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
_LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
# The OpenAPI document states what the validators below accept (they strip and lower-case
# first, so the document's patterns allow upper case; a URL's is the plain http(s) form).
_ANY_LABEL = "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_WEB_URL = r"^https?://[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?([/?#]\S*)?$"


class Schema(PydanticModel):
    """Bodies ignore fields they do not know, as the API's clients expect."""

    model_config = ConfigDict(extra="ignore")


class OutSchema(PydanticModel):
    model_config = ConfigDict(extra="forbid")


def _color(value: str) -> str:
    if not _COLOR.match(value):
        raise ValueError("must be a hex color such as #1a2b3c")
    return value if value.startswith("#") else "#" + value


@lru_cache(maxsize=1)
def _time_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def _time_zone(value: str) -> str:
    if value not in _time_zones():
        raise ValueError("must be an IANA time zone name such as Europe/Paris")
    return value


def _email(value: str) -> str:
    value = value.strip()
    if len(value) > 254 or not _EMAIL.match(value):
        raise ValueError("must be a valid email address (the part before @ in ASCII)")
    return value


def _web_url(value: str) -> str:
    value = value.strip()
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an absolute http or https URL")
    return value


def _subdomain(value: str) -> str:
    value = value.strip().lower()
    if not _SUBDOMAIN.match(value):
        raise ValueError("may hold only letters, digits and inner hyphens (at most 63)")
    return value


def _hostname(value: str) -> str:
    value = value.strip().lower().rstrip(".")
    labels = value.split(".")
    if len(value) > 253 or len(labels) < 2 or not all(_LABEL.match(label) for label in labels):
        raise ValueError("must be a domain name such as status.example.com")
    return value


def _empty_is_none(value):
    return None if isinstance(value, str) and not value.strip() else value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("can't be blank")
    return value


def _documented(**constraints) -> Field:
    """JSON schema keywords for the document, beside a validator that enforces them with the
    contract's messages (pydantic's own constraints would answer with its messages first)."""
    return Field(json_schema_extra=constraints)


def _time_zone_names(schema: dict) -> None:
    schema["enum"] = sorted(_time_zones())


Color = Annotated[str, AfterValidator(_color), _documented(pattern=_COLOR.pattern)]
TimeZone = Annotated[str, AfterValidator(_time_zone), Field(json_schema_extra=_time_zone_names)]
Email = Annotated[str, AfterValidator(_email), _documented(pattern=_EMAIL.pattern, maxLength=254)]
WebUrl = Annotated[str, AfterValidator(_web_url), _documented(pattern=_WEB_URL)]
Subdomain = Annotated[str, AfterValidator(_subdomain), _documented(pattern=f"^{_ANY_LABEL}$")]
Hostname = Annotated[
    str,
    AfterValidator(_hostname),
    _documented(pattern=f"^({_ANY_LABEL}\\.)+{_ANY_LABEL}$", maxLength=253),
]
# Blank is refused: at least one character that is not white space.
Name = Annotated[
    str, Field(max_length=255), AfterValidator(_not_blank), _documented(minLength=1, pattern=r"\S")
]
Text = Annotated[str, Field(max_length=20000)]
ShortText = Annotated[str, Field(max_length=255)]
# Optional text that a client clears by sending an empty string.
Clearable = BeforeValidator(_empty_is_none)


def wrapper_required(wrapper: str, *names: str) -> ConfigDict:
    """For a body validated even when its wrapper is absent (so that an empty body is a 422
    naming the missing fields): the document requires the wrapper, and `names` inside it
    (strings, not null)."""

    def extra(schema: dict) -> None:
        schema["required"] = [wrapper]
        if names:
            inner = schema["properties"][wrapper]
            required = {
                "required": list(names),
                "properties": {name: {"type": "string"} for name in names},
            }
            schema["properties"][wrapper] = {"allOf": [inner, required]}

    return ConfigDict(json_schema_extra=extra)


class Pagination(Schema):
    page: int | None = Field(None, ge=1, description="1-based page number")
    per_page: int | None = Field(None, ge=1, le=100, description="page size, 100 at most")
