"""Field types that validate the way the contract says, shared by every schema."""

import re
import zoneinfo
from functools import lru_cache
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field
from pydantic import BaseModel as PydanticModel
from pydantic_core import core_schema

from chalicelib import net
from chalicelib.http.pagination import MAX_PAGE_NUMBER

_COLOR = re.compile(r"^#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$")
# The local part in printable ASCII ("!" to "?" and "A" to "~": all but "@" and spaces): SES,
# like SMTP without extensions, cannot send to any other. The domain may be international.
# The domain: no white space and no control characters (SES refuses them: "Missing domain").
# A mailbox on a domain name: labels of letters (any script), digits and hyphens, the last not
# all digits, so neither an address literal (`a@[127.0.0.1]`) nor a bare IP or one label.
_DOMAIN_LABEL = r"[^@\s\x00-\x1f\x7f.\[\]()<>,;:\\\"!#$%&'*+/=?^`{|}~_]{1,63}"
_EMAIL = re.compile(rf"^[!-?A-~]+@(?!-)(?:{_DOMAIN_LABEL}\.)+(?!\d+$){_DOMAIN_LABEL}$")
_SUBDOMAIN = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
_LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
# The OpenAPI document states what the validators below accept (they strip and lower-case
# first, so the document's patterns allow upper case; a URL's is the plain http(s) form).
_ANY_LABEL = "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_WEB_URL = r"^https?://[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?([/?#]\S*)?$"


def _no_null_defaults(schema: dict) -> None:
    """A field left out changes nothing: where it may not be null (`NotNull`), the document
    gives no default rather than a null one its own type refuses."""
    for field in schema.get("properties", {}).values():
        nullable = field.get("type") == "null" or {"type": "null"} in field.get("anyOf", [])
        if "default" in field and field["default"] is None and not nullable:
            del field["default"]


class Schema(PydanticModel):
    """Bodies ignore fields they do not know, as the API's clients expect."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=_no_null_defaults)


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
    """The one rule for an email address, wherever one is taken (the API, the console, the
    public form, an import): every one of them is validated by this type."""
    value = value.strip()
    if len(value) > 254 or not _EMAIL.match(value):
        raise ValueError(
            "must be a valid email address: a mailbox (in ASCII) on a domain name, such as "
            "name@example.com"
        )
    return value


def _web_url(value: str) -> str:
    value = value.strip()
    if not net.is_outbound_url(value):
        raise ValueError(net.INVALID_URL)
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


# A character that is not blank as `str.strip` sees it (which also strips the separators
# \x1c-\x1f and \x85, whitespace to Python and not to JSON Schema's `\s`).
_SHOWN = r"[^\s\x1c-\x1f\x85]"


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
    str, Field(max_length=255), AfterValidator(_not_blank), _documented(minLength=1, pattern=_SHOWN)
]
Text = Annotated[str, Field(max_length=20000)]
ShortText = Annotated[str, Field(max_length=255)]
# Optional text that a client clears by sending an empty string.
Clearable = BeforeValidator(_empty_is_none)


def _not_null(value):
    if value is None:
        raise ValueError("may be left out, not null")
    return value


class _NotNull:
    """A field a body may leave out but not send as null (what it sets always has a value):
    refused as null, and documented without null."""

    def __get_pydantic_core_schema__(self, source, handler):
        return core_schema.no_info_before_validator_function(_not_null, handler(source))

    def __get_pydantic_json_schema__(self, schema, handler):
        documented = handler(schema)
        options = [o for o in documented.get("anyOf", []) if o != {"type": "null"}]
        if "anyOf" in documented and len(options) == 1:
            documented = {**{k: v for k, v in documented.items() if k != "anyOf"}, **options[0]}
        elif "anyOf" in documented:
            documented["anyOf"] = options
        return documented


NotNull = _NotNull()


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
    page: int | None = Field(None, ge=1, le=MAX_PAGE_NUMBER, description="1-based page number")
    per_page: int | None = Field(None, ge=1, le=100, description="page size, 100 at most")


class HealthOut(OutSchema):
    """`GET /v1/health`: this region reads its table."""

    status: str = Field(description="`ok`")
    region: str = Field(description="the AWS region that answered")
