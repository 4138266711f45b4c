"""The few ways a rule says no, knowing nothing of HTTP: the request layer
(`chalicelib.http.errors.from_domain`) turns each into the contract's body."""


class DomainError(Exception):
    """A change or a read the rules refuse."""


class NotFound(DomainError):
    """The thing named does not exist (or is not the caller's page's)."""


class Invalid(DomainError):
    """Fields that break a rule: field name -> what is wrong with it."""

    def __init__(self, problems: dict[str, list[str]]):
        super().__init__(problems)
        self.problems = problems


def invalid(field: str, problem: str) -> Invalid:
    """One field that breaks a rule."""
    return Invalid({field: [problem]})


class Refused(DomainError):
    """A request the rules cannot act on as made (the contract's Bad request)."""


class Conflict(DomainError):
    """The change contradicts the state another change left (a conflict of intent), or kept
    losing to concurrent writers."""


class Forbidden(DomainError):
    """A request the rules refuse whole (a batch naming an unknown metric, or too big)."""


class Unavailable(DomainError):
    """Something this service cannot get here (the points of a provider-linked metric)."""


class NotAllowed(DomainError):
    """The operation exists but not for this kind of thing (data for a provider-fed metric)."""
