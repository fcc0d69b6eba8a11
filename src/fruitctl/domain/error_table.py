"""The one table of error codes: what each canonical code is called, and numbered, at every door.

Every front door renders an error through this table and every client reads one back through
it, so a code means the same wherever it is met:

- the HTTP API answers ``status`` with ``{"error": {"code": wire, ...}}`` (seed 003; its
  ``invalid_params`` is ``VALIDATION_ERROR``), and ``ApiClient`` reads ``wire`` back;
- the socket answers ``{"code": code, "data": {"jsonrpcCode": jsonrpc}}`` (seed 000's lower
  snake names, the JSON-RPC integer for strict clients), and ``RpcClient`` reads ``code`` back;
- AAI answers ``{"status": "error", "error": {"code": aai}}`` (seed 004, upper snake);
- MCP answers ``isError`` with the message (seed 002) and the code in ``_meta``;
- the CLI prints the message and exits with ``exit``.

Retryable or not is the error class's own (``domain.errors``), the same at every door. The
HTTP server also has a few refusals of its own, met before any tool runs (``HTTP_ONLY``): each
names the canonical code a client reads it as, so a remote CLI exits as a local one would.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fruitctl.domain.errors import FruitctlError, from_code


@dataclass(frozen=True)
class ErrorRow:
    code: str
    """The canonical name (``domain.errors``), also the socket's and MCP's."""
    status: int
    """The HTTP API's status."""
    wire: str
    """The HTTP API's name for it, in its error body."""
    jsonrpc: int
    """The JSON-RPC 2.0 integer (standard ones, else a stable server code -32001...-32099)."""
    aai: str
    """The AAI envelope's name for it."""
    exit: int
    """The CLI's exit status (``cli.output.EXIT_MEANINGS`` says what each means)."""


def _row(code: str, status: int, jsonrpc: int, exit_status: int, wire: str = "") -> ErrorRow:
    upper = code.upper()
    return ErrorRow(code, status, wire or upper, jsonrpc, upper, exit_status)


TABLE: tuple[ErrorRow, ...] = (
    _row("invalid_params", 422, -32602, 2, wire="VALIDATION_ERROR"),  # seed 003's name
    _row("parse_error", 400, -32700, 2),
    _row("invalid_request", 400, -32600, 2),
    _row("method_not_found", 404, -32601, 2),
    _row("not_found", 404, -32003, 3),
    _row("ambiguous", 409, -32017, 2),  # the call must name one: reword it, as invalid input
    _row("proposal_not_found", 404, -32007, 3),
    _row("conflict", 409, -32009, 4),
    _row("permission_denied", 403, -32001, 5),
    _row("list_not_allowed", 403, -32004, 5),
    _row("calendar_not_allowed", 403, -32005, 5),
    _row("mode_forbidden", 403, -32011, 5),
    _row("approval_required", 403, -32006, 6),
    _row("rate_limited", 429, -32010, 7),
    _row("timeout", 504, -32002, 8),
    _row("backend_unavailable", 503, -32012, 9),
    _row("unsupported", 501, -32013, 10),
    _row("proposal_expired", 410, -32008, 11),
    _row("execution_failed", 502, -32014, 12),
    _row("outcome_unknown", 504, -32015, 14),  # past its deadline like timeout, never retryable
    _row("internal_error", 500, -32603, 70),
    _row("storage_fault", 507, -32016, 78),  # Insufficient Storage; exit as a config error
)
BY_CODE: dict[str, ErrorRow] = {row.code: row for row in TABLE}
UNKNOWN = BY_CODE["internal_error"]


@dataclass(frozen=True)
class HttpOnlyRow:
    """A refusal of the HTTP server itself (no tool ran), and the code a client reads it as."""

    code: str
    status: int
    means: str
    retryable: bool = False

    @property
    def wire(self) -> str:
        return self.code.upper()


HTTP_ONLY: tuple[HttpOnlyRow, ...] = (
    HttpOnlyRow("unauthorized", 401, "permission_denied"),  # no token, or not a valid one
    HttpOnlyRow("misdirected_request", 421, "invalid_request"),  # a Host this server is not
    HttpOnlyRow("method_not_allowed", 405, "method_not_found"),
    HttpOnlyRow("payload_too_large", 413, "invalid_request"),  # as an over-long socket line
    HttpOnlyRow("request_timeout", 408, "timeout", retryable=True),  # the client sent too slowly
    # Every connection busy: the socket says rate_limited when it has too many connections.
    HttpOnlyRow("server_busy", 503, "rate_limited", retryable=True),
)
HTTP_ONLY_BY_CODE: dict[str, HttpOnlyRow] = {row.code: row for row in HTTP_ONLY}

_FROM_WIRE: dict[str, str] = {
    **{row.wire: row.code for row in TABLE},
    **{row.wire: row.means for row in HTTP_ONLY},
}
_FROM_AAI: dict[str, str] = {row.aai: row.code for row in TABLE}


def row_of(code: str | None) -> ErrorRow:
    """The row of a canonical code; a code nobody knows is an internal error."""
    return BY_CODE.get(code or "", UNKNOWN)


def exit_status(code: str | None) -> int:
    return row_of(code).exit


def from_wire(name: str) -> str | None:
    """The canonical code an HTTP API error body names, or None when it names none."""
    return _FROM_WIRE.get(name)


def from_aai(name: str) -> str | None:
    """The canonical code an AAI error envelope names, or None when it names none."""
    return _FROM_AAI.get(name)


def rebuilt(code: str, message: str, details: dict[str, Any] | None = None) -> FruitctlError:
    """The domain error a client read back (its canonical code, message and details): what
    the gateway raised, so a client reports it as the gateway's own process would. Details
    are set after, so none of their names can pass for an argument of ``from_code``."""
    error = from_code(code, message)
    error.details = dict(details or {})
    return error


def retryable(code: str) -> bool:
    """Whether trying again as it is may work: the error class's word, or the HTTP server's."""
    if code in HTTP_ONLY_BY_CODE:
        return HTTP_ONLY_BY_CODE[code].retryable
    return from_code(code, "").retryable
