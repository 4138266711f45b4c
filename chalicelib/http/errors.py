"""The one error type of the API and its JSON body: `{"error": message[, "errors": {...}]}`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalicelib.domain import errors as domain

if TYPE_CHECKING:
    from pydantic import ValidationError

BAD_REQUEST = "Bad request"
UNAUTHENTICATED = "Could not authenticate"
FORBIDDEN = "You are not authorized to access this resource"
NOT_FOUND = "The requested resource could not be found"
CONFLICT = "The request could not be processed due to a conflict in resource state"
UNPROCESSABLE = "Unprocessable entity"
RATE_LIMITED = "Rate limit exceeded"
METHOD_NOT_ALLOWED = "Method not allowed"
TOO_LARGE = "Request entity too large"
INTERNAL = "Internal server error"
# A region whose table does not answer (`GET /v1/health`): Route 53 turns to the other one.
UNAVAILABLE = "Service unavailable"


class ApiError(Exception):
    """An answer other than success: the status code, the contract's message, field errors."""

    def __init__(
        self,
        status: int,
        message: str,
        errors: dict[str, list[str]] | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors
        self.headers = headers or {}

    def body(self) -> dict:
        body: dict = {"error": self.message}
        if self.errors is not None:
            body["errors"] = self.errors
        return body


def bad_request() -> ApiError:
    return ApiError(400, BAD_REQUEST)


def unauthenticated() -> ApiError:
    return ApiError(401, UNAUTHENTICATED)


def forbidden() -> ApiError:
    return ApiError(403, FORBIDDEN)


def not_found() -> ApiError:
    return ApiError(404, NOT_FOUND)


def conflict() -> ApiError:
    return ApiError(409, CONFLICT)


def too_large(limit_bytes: int) -> ApiError:
    return ApiError(413, TOO_LARGE, {"body": [f"is larger than {limit_bytes} bytes"]})


def unprocessable(errors: dict[str, list[str]]) -> ApiError:
    return ApiError(422, UNPROCESSABLE, errors)


def invalid(field: str, problem: str) -> ApiError:
    """A 422 naming one field."""
    return unprocessable({field: [problem]})


def from_domain(error: domain.DomainError) -> ApiError:
    """A rule's refusal as the contract's answer."""
    if isinstance(error, domain.NotFound):
        return not_found()
    if isinstance(error, domain.Invalid):
        return unprocessable(error.problems)
    if isinstance(error, domain.Conflict):
        return conflict()
    if isinstance(error, domain.Forbidden):
        return forbidden()
    if isinstance(error, domain.NotAllowed):
        return ApiError(405, METHOD_NOT_ALLOWED)
    return bad_request()


def validated(schema: type, data: Any, wrapper: str | None = None) -> Any:
    """`data` validated by the pydantic model `schema`, or a 422 naming what failed."""
    from pydantic import ValidationError  # loaded with `schema`; an import here costs nothing

    try:
        return schema.model_validate(data)
    except ValidationError as error:
        raise from_validation_error(error, wrapper) from None


def is_validation_error(error: Exception) -> bool:
    """Whether a handler's surprise is pydantic's (say, a rule re-validating merged fields)."""
    from pydantic import ValidationError  # only code that imported pydantic can raise it

    return isinstance(error, ValidationError)


def from_validation_error(error: ValidationError, wrapper: str | None = None) -> ApiError:
    """A pydantic failure as a 422, each field named by its path below the body's wrapper."""
    errors: dict[str, list[str]] = {}
    for item in error.errors():
        location = [str(part) for part in item["loc"] if not _is_type_tag(part)]
        if wrapper and location and location[0] == wrapper and len(location) > 1:
            location = location[1:]
        field = ".".join(location) or (wrapper or "body")
        message = item["msg"]
        if message.startswith("Value error, "):
            message = message[len("Value error, ") :]
        problems = errors.setdefault(field, [])
        if message not in problems:
            problems.append(message)
    return unprocessable(errors)


_TYPE_TAGS = {"str", "int", "float", "bool", "none", "list", "dict", "date", "datetime", "literal"}


def _is_type_tag(part) -> bool:
    """pydantic names the member of a union that failed (`literal['a']`, `str`) in the error's
    location; the client needs only the field."""
    return isinstance(part, str) and ("[" in part or part in _TYPE_TAGS)
