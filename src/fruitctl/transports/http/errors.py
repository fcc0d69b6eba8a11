"""Seed 003's error model on HTTP: ``{"error": {"code", "message", "retryable", "details"}}``.

``error_response`` is the one place a canonical error code becomes an HTTP status and a wire
code. Wire codes are the canonical ones in upper snake case (``LIST_NOT_ALLOWED``), except
``invalid_params``, which seed 003 names ``VALIDATION_ERROR``. A few codes exist only at this
door (``UNAUTHORIZED``, ``MISDIRECTED_REQUEST``, ``METHOD_NOT_ALLOWED``,
``PAYLOAD_TOO_LARGE``, ``REQUEST_TIMEOUT``, ``SERVER_BUSY``) and have no canonical twin. No
stack trace, token or internal detail ever reaches a body.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from fruitctl.domain.errors import FruitctlError

STATUS: dict[str, int] = {
    "invalid_params": 422,
    "parse_error": 400,
    "invalid_request": 400,
    "not_found": 404,
    "proposal_not_found": 404,
    "method_not_found": 404,
    "list_not_allowed": 403,
    "calendar_not_allowed": 403,
    "permission_denied": 403,
    "approval_required": 403,
    "mode_forbidden": 403,
    "proposal_expired": 410,
    "conflict": 409,
    "rate_limited": 429,
    "unsupported": 501,
    "execution_failed": 502,
    "backend_unavailable": 503,
    "storage_fault": 507,  # Insufficient Storage: the server's own file cannot be used
    "timeout": 504,
    "outcome_unknown": 504,  # past its deadline, like timeout - but never retryable
    "internal_error": 500,
    # This door's own codes.
    "unauthorized": 401,
    "misdirected_request": 421,
    "method_not_allowed": 405,
    "payload_too_large": 413,
    "request_timeout": 408,  # the client took too long to send its request
    "server_busy": 503,  # every connection the server may hold has a request in flight
}
WIRE_NAMES = {"invalid_params": "VALIDATION_ERROR"}
RETRYABLE = frozenset({"rate_limited", "timeout", "backend_unavailable", "server_busy"})
CHALLENGE = 'Bearer realm="fruitctl"'


class HttpProblem(Exception):
    """An error met at this door (authentication, scope, size): rendered like any other."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


def wire_code(code: str) -> str:
    return WIRE_NAMES.get(code, code.upper())


def error_response(
    code: str | None,
    message: str,
    details: dict[str, Any] | None = None,
    *,
    retryable: bool | None = None,
) -> JSONResponse:
    """The response for a canonical (or door-level) error code - the only such mapping here."""
    code = code if code in STATUS else "internal_error"
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
        "retryable": code in RETRYABLE if retryable is None else retryable,
        "details": details,
    }
    return JSONResponse({"error": body}, status_code=STATUS[code], headers=headers)


def from_exception(exc: FruitctlError | HttpProblem) -> JSONResponse:
    retryable = exc.retryable if isinstance(exc, FruitctlError) else None
    return error_response(exc.code, exc.message, exc.details, retryable=retryable)


def status_of(code: str) -> int:
    return STATUS.get(code, 500)
