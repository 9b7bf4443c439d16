"""The service's refusals, by kind: what went wrong, never how a transport says it.

Use cases, the model and the adapters raise these; `service/http/problems.py` maps each kind to its
problem+json status (one table, `STATUS`), and the command line maps them to exit codes
(`service/cli/__init__.py`, `EXIT`). A refusal carries a stable `code`, a human `detail`, and extra
members for the answer (`current_version` of a conflict); `retry_after` says when a busy caller may
retry (seconds).
"""

from __future__ import annotations

from typing import Any, Optional


class ServiceError(Exception):
    """A refusal: a stable code, a human detail, extra members of the answer."""

    def __init__(self, code: str, detail: str, *, retry_after: Optional[int] = None, **extra: Any) -> None:
        super().__init__(detail)
        self.code, self.detail, self.retry_after, self.extra = code, detail, retry_after, extra


class Invalid(ServiceError):
    """The request itself is malformed (a format that does not exist, a bad query)."""


class Unauthenticated(ServiceError):
    """No credential where one is needed."""


class Forbidden(ServiceError):
    """A credential that does not allow this (another seat's token, not the owner)."""


class NotFound(ServiceError):
    """No such match (or thing in it)."""


class Conflict(ServiceError):
    """The match is not in a state that allows this (full, over, not started, not finished)."""


class VersionConflict(Conflict):
    """The caller's expected version is not the match's (in the caller's own numbering)."""

    def __init__(self, current: int) -> None:
        super().__init__(
            "version_conflict", f"the match is at version {current}; reload and retry", current_version=current
        )
        self.current = current


class Rejected(ServiceError):
    """Well-formed but refused on its content (a log that fails its audit, an illegal import row)."""


class TooMany(ServiceError):
    """This caller holds too many of something at once (open waits per address)."""


class Busy(ServiceError):
    """The service cannot take this now (contention, a full waiting room); retry after `retry_after`."""


class IntegrityFailure(ServiceError):
    """Stored rows fail their hash chain (the database was edited): never served. `problem` names
    the row (for the operator: the log and the command line, not the HTTP answer)."""

    def __init__(self, match_id: str, problem: str, what: str = "stored events fail their hash chain") -> None:
        super().__init__(
            "integrity_error",
            f"this match's {what} (the database was edited); the operator has been alerted",
        )
        self.match_id, self.problem = match_id, problem
