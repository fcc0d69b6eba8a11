"""The one error tree of fruitctl.

Every error a caller can see is a ``FruitctlError`` carrying a canonical ``code``; each front door
renders that code in its own dialect (socket: ``list_not_allowed``; HTTP/AAI: ``LIST_NOT_ALLOWED``;
MCP: ``isError`` with the message; CLI: an exit status and one line), every name and number of it
read from the one table in ``domain.error_table``.

    FruitctlError
    ├── InvalidParams            invalid_params        the caller sent something malformed
    │   └── InvalidQuery         invalid_params        a JMESPath expression that cannot run
    ├── NotFound                 not_found             a list, reminder or event that does not exist
    ├── ListNotAllowed           list_not_allowed
    ├── CalendarNotAllowed       calendar_not_allowed
    ├── PermissionDenied         permission_denied     the OS refused access (carries instructions)
    ├── ApprovalRequired         approval_required
    ├── ProposalNotFound         proposal_not_found
    ├── ProposalExpired          proposal_expired
    ├── Conflict                 conflict              the target changed under us
    ├── RateLimited              rate_limited          retryable
    ├── ModeForbidden            mode_forbidden
    ├── Timeout                  timeout               retryable
    ├── BackendUnavailable       backend_unavailable   retryable
    │   └── StoreBusy            backend_unavailable   another process holds a store's write lock
    ├── StorageFault             storage_fault         a database file cannot be used: full disk,
    │                                                  read-only, cannot open, damaged, I/O error
    ├── OutcomeUnknown           outcome_unknown       a write past its deadline that may still land
    │                                                  (never retryable: its proposal settles it)
    ├── Unsupported              unsupported           the backend cannot do this
    ├── MethodNotFound           method_not_found
    ├── ParseError               parse_error
    ├── InvalidRequest           invalid_request
    ├── ExecutionFailed          execution_failed
    └── InternalError            internal_error
"""

from __future__ import annotations

from typing import Any, ClassVar


class FruitctlError(Exception):
    """Base of every error fruitctl reports to a caller."""

    code: ClassVar[str] = "internal_error"
    retryable: ClassVar[bool] = False

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        """The error as plain data: code, message, retryable and any details."""
        body: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "retryable": self.retryable,
        }
        if self.details:
            body["details"] = self.details
        return body


class InvalidParams(FruitctlError):
    code = "invalid_params"


class InvalidQuery(InvalidParams):
    """A JMESPath expression that does not parse or fails while it runs."""


class NotFound(FruitctlError):
    code = "not_found"


class ListNotAllowed(FruitctlError):
    code = "list_not_allowed"


class CalendarNotAllowed(FruitctlError):
    code = "calendar_not_allowed"


class PermissionDenied(FruitctlError):
    code = "permission_denied"


class ApprovalRequired(FruitctlError):
    code = "approval_required"


class ProposalNotFound(FruitctlError):
    code = "proposal_not_found"


class ProposalExpired(FruitctlError):
    code = "proposal_expired"


class Conflict(FruitctlError):
    code = "conflict"


class RateLimited(FruitctlError):
    code = "rate_limited"
    retryable = True


class ModeForbidden(FruitctlError):
    code = "mode_forbidden"


class Timeout(FruitctlError):
    code = "timeout"
    retryable = True


class BackendUnavailable(FruitctlError):
    code = "backend_unavailable"
    retryable = True


class StoreBusy(BackendUnavailable):
    """Another process holds the write lock of one of fruitctl's databases past the wait
    (SQLite's "database is locked"): nothing was changed, and trying again shortly works."""


class StorageFault(FruitctlError):
    """One of fruitctl's database files cannot be used as it is - the disk is full, the file or
    its folder is read-only, it cannot be opened, it is not a database, the disk failed. The
    message names the file and what to do; trying again as it is does not help."""

    code = "storage_fault"


class OutcomeUnknown(FruitctlError):
    """A write still running at its deadline, past the point where it may change things: it
    may yet land. Not retryable - a retry could do it twice; its proposal records how it ended
    (``get_proposal``), and a process that dies meanwhile finishes it on its next start."""

    code = "outcome_unknown"


class Unsupported(FruitctlError):
    code = "unsupported"


class MethodNotFound(FruitctlError):
    code = "method_not_found"


class ParseError(FruitctlError):
    code = "parse_error"


class InvalidRequest(FruitctlError):
    code = "invalid_request"


class ExecutionFailed(FruitctlError):
    code = "execution_failed"


class InternalError(FruitctlError):
    code = "internal_error"


def _family(cls: type[FruitctlError]) -> list[type[FruitctlError]]:
    return [cls, *(member for sub in cls.__subclasses__() for member in _family(sub))]


ERROR_CODES: tuple[str, ...] = tuple(sorted({cls.code for cls in _family(FruitctlError)}))


def from_code(
    code: str | None,
    message: str,
    *,
    default: type[FruitctlError] | None = None,
    **details: Any,
) -> FruitctlError:
    """The error of a canonical code (for results that crossed a boundary as data); a code
    nobody knows becomes ``default`` (InternalError unless told otherwise)."""
    for cls in _family(FruitctlError)[1:]:  # parents first: InvalidParams before InvalidQuery
        if cls.code == code:
            return cls(message, **details)
    return (default or InternalError)(message, **details)
