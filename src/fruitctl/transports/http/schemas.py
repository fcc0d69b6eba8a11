"""What the HTTP API answers, as models for the OpenAPI document.

Responses are built from the gateway's output and sent as they are (no re-validation on the hot
path); these models describe them, and the schemathesis test holds the two to agreeing. Request
bodies are not declared here: each write route takes its schema from the tool's input schema in
the registry, the one source every front door shares.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from fruitctl.approvals.batch import BATCH_MAX
from fruitctl.domain import error_table
from fruitctl.domain.reminders import Reminder, ReminderList
from fruitctl.tools.outputs import Grant, Pending, Proposal

# Declared once, where the tools and the approvals declare them too: the pending answer and the
# proposal are the same type at every door.
__all__ = ["Grant", "Pending", "Proposal", "Reminder", "ReminderList"]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


WIRE_CODES: list[JsonValue] = [
    *(row.wire for row in error_table.TABLE),
    *(row.wire for row in error_table.HTTP_ONLY),
]


class ErrorBody(Model):
    code: str = Field(
        description="What went wrong, one of the table of error codes.",
        json_schema_extra={"enum": WIRE_CODES},
    )
    message: str
    retryable: bool
    details: dict[str, Any]


class ErrorEnvelope(Model):
    error: ErrorBody


class Health(Model):
    status: Literal["ok"]
    service: str
    version: str


class Rejection(Model):
    reason: str | None = Field(None, max_length=2000, description="Why (the agent can read it)")


GRANT_FOR = (
    "Also allow the agent this tool where the proposal reaches, for this long: '30m', '2h' or "
    "seconds; at most 24h"
)
GRANT_SCOPE = (
    "With allowFor: 'list' (the proposal's lists, calendars or projects; the default) or 'tool'"
)


class Approval(Model):
    allowFor: str | float | None = Field(None, description=GRANT_FOR)
    scope: Literal["list", "tool"] | None = Field(None, description=GRANT_SCOPE)


class Batch(Model):
    """Many proposals decided at once, each on its own: these ``ids``, or every pending one
    (of ``agent``, of ``tool``)."""

    ids: list[str] | None = Field(None, max_length=BATCH_MAX, description="These proposals")
    agent: str | None = Field(None, description="Only this agent's (its shown name or identity)")
    tool: str | None = Field(None, description="Only this tool's")
    allowFor: str | float | None = Field(None, description=GRANT_FOR + " (approve only)")
    scope: Literal["list", "tool"] | None = Field(None, description=GRANT_SCOPE)
    reason: str | None = Field(None, max_length=2000, description="Why (reject only)")


class Decided(Model):
    decided: list[dict[str, Any]]
    failed: list[dict[str, Any]] = Field(description="{id, error} of each that failed")


class AuditEntry(Model):
    seq: int
    at: str
    actor: str
    event: str
    proposalId: str | None
    tool: str | None
    payload: dict[str, Any]
    hash: str


class ConfigValue(Model):
    value: list[str] | None = Field(description="A list of names; null clears the allowlist")


class NativeDependency(Model):
    name: str
    status: str = Field(description="authorized, denied, not_determined or restricted")
    available: bool


class Capability(Model):
    tool: str
    title: str
    description: str
    category: str
    risk: str
    routes: list[str] = Field(description="The HTTP routes that call this tool")
    inputSchema: dict[str, Any]


class Adapter(Model):
    name: str
    version: str
    backend: str | None
    nativeDeps: list[NativeDependency]
    capabilities: list[Capability]


class Skills(Model):
    service: str
    version: str
    mode: str
    adapters: list[Adapter]


class Deleted(Model):
    deleted: list[str]


QUERY_RESULT = {
    "description": "The reminders, newest first by default. With `query` the JMESPath "
    "expression decides the shape, so the answer may be any JSON value.",
    "content": {
        "application/json": {
            "schema": {
                "anyOf": [
                    {"type": "array", "items": {"$ref": "#/components/schemas/Reminder"}},
                    {},
                ]
            }
        }
    },
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The error responses a route can give, each in seed 003's envelope."""
    return {
        status: {"model": ErrorEnvelope, "description": _REASONS.get(status, "Error")}
        for status in (*ALWAYS, *statuses)
    }


# Any request can be malformed, too large, carry an unknown parameter, lack a token or come too
# often - every operation documents these.
ALWAYS = (400, 401, 413, 422, 429)


def accepted() -> dict[int | str, dict[str, Any]]:
    return {202: {"model": Pending, "description": "Proposed: waits for a person's approval"}}


_REASONS = {
    400: "Malformed request",
    401: "Missing, invalid, expired or revoked bearer token",
    403: "Not allowed (scope, allowlist, mode)",
    404: "Not found",
    409: "Conflict: the target changed, or the proposal was decided already",
    410: "The proposal expired",
    413: "Request body too large",
    422: "Validation error",
    429: "Rate limited (see Retry-After)",
    501: "The backend cannot do this",
    502: "The execution failed",
    503: "The backend is unavailable",
    504: "Timed out",
}
