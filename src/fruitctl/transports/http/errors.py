"""Seed 003's error model on HTTP: ``{"error": {"code", "message", "retryable", "details"}}``.

``error_response`` is the one place an error code becomes an HTTP status and a wire name, both
read from the one table (``domain.error_table``): canonical codes in upper snake case
(``LIST_NOT_ALLOWED``) but ``invalid_params``, which seed 003 names ``VALIDATION_ERROR``, and
the few refusals of this door's own (``UNAUTHORIZED``, ``PAYLOAD_TOO_LARGE`` ...), which the
table's ``HTTP_ONLY`` rows list with the code a client reads them as. No stack trace, token or
internal detail ever reaches a body.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from fruitctl.domain import error_table
from fruitctl.domain.errors import FruitctlError

CHALLENGE = 'Bearer realm="fruitctl"'


class HttpProblem(Exception):
    """An error met at this door (authentication, scope, size): rendered like any other."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


def wire_code(code: str) -> str:
    door = error_table.HTTP_ONLY_BY_CODE.get(code)
    return door.wire if door is not None else error_table.row_of(code).wire


def error_response(
    code: str | None,
    message: str,
    details: dict[str, Any] | None = None,
    *,
    retryable: bool | None = None,
) -> JSONResponse:
    """The response for a canonical (or door-level) error code - the only such mapping here."""
    if code not in error_table.HTTP_ONLY_BY_CODE:
        code = error_table.row_of(code).code  # a code nobody knows: internal_error
    details = dict(details or {})
    headers: dict[str, str] = {}
    if code == "unauthorized":
        error = details.pop("error", "invalid_token")
        headers["WWW-Authenticate"] = f'{CHALLENGE}, error="{error}"'
    if code == "rate_limited" and "retryAfterSeconds" in details:
        headers["Retry-After"] = str(int(details["retryAfterSeconds"]))
    body = {
        "code": wire_code(code),
        "message": message,
        "retryable": error_table.retryable(code) if retryable is None else retryable,
        "details": details,
    }
    return JSONResponse({"error": body}, status_code=status_of(code), headers=headers)


def from_exception(exc: FruitctlError | HttpProblem) -> JSONResponse:
    retryable = exc.retryable if isinstance(exc, FruitctlError) else None
    return error_response(exc.code, exc.message, exc.details, retryable=retryable)


def status_of(code: str) -> int:
    door = error_table.HTTP_ONLY_BY_CODE.get(code)
    return door.status if door is not None else error_table.row_of(code).status
