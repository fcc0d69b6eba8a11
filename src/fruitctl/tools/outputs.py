"""What every write may answer, as types: the items of a batch that could not work, the pending
proposal a person has to approve first (``Pending``; the tool model adds it to every write's
schema) and the proposal itself (``Proposal``). Declared here once, as models: ``approvals.views``
builds them, the HTTP API's OpenAPI and every door's schemas reuse them. What each capability's
tools answer is in its ``outputs`` module (``capabilities/<subject>/outputs.py``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, with_config
from typing_extensions import TypedDict

# -- answers of every write ---------------------------------------------------------------------


class Shape(BaseModel):
    """An answer the approvals build themselves, validated as it is built: no key more or less
    than declared (the HTTP API's OpenAPI and MCP's outputSchema say so too)."""

    model_config = ConfigDict(extra="forbid")


# An item that could not work, in a batch's answer or a pending one. Its own config, so that it is
# one schema everywhere rather than taking ``Pending``'s (no extra keys) in there alone.
@with_config(ConfigDict(extra="ignore"))
class IndexFailure(TypedDict):
    index: int
    error: str


@with_config(ConfigDict(extra="ignore"))
class IdFailure(TypedDict):
    id: str
    error: str


class Pending(Shape):
    """A write waiting for a person: approve it at ``url`` or with ``approve``, or poll it."""

    status: Literal["pending"]
    proposalId: str
    summary: str
    expiresAt: str
    approve: str = Field(description="The CLI command that approves it")
    url: str | None = Field(description="The approval page, when one is served")
    failed: list[IndexFailure | IdFailure] = Field(
        default_factory=list,
        description="Only in a batch some of whose items cannot work: those items, left out of "
        "the proposal (the rest waits for the person)",
    )


# -- proposals ----------------------------------------------------------------------------------


Status = Literal["PENDING", "APPROVED", "EXECUTED", "REJECTED", "EXPIRED", "FAILED"]
"""Where a proposal stands (``APPROVED``: being executed)."""


class DiffRow(Shape):
    """One value a write changes, as a person reads it."""

    target: str
    field: str
    before: Any
    after: Any


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


class Grant(Shape):
    """A standing grant: ``tool`` allowed for ``agent`` on ``scope`` until ``expiresAt``."""

    id: str
    tool: str
    agent: str
    scope: list[str] | None = Field(description="Containers covered; null: the whole tool")
    status: Literal["live", "expired", "revoked"]
    createdAt: str
    expiresAt: str
    createdBy: str
    proposalId: str | None
    revokedAt: str | None
    revokedBy: str | None


class Proposal(Shape):
    """A whole proposal: what was asked, its before -> after diff, and what became of it."""

    id: str
    tool: str
    status: Status
    summary: str
    actor: str
    createdAt: str
    expiresAt: str
    resolvedAt: str | None
    resolvedBy: str | None
    reason: str | None
    args: dict[str, Any]
    diff: list[DiffRow]
    result: Any = Field(description="What the execution answered (EXECUTED)")
    error: dict[str, Any] | None
    canUndo: bool
    undoOf: str | None
    idempotencyKey: str | None
    # A plain object, not ``Grant``'s schema: every write tool's schema carries ``Proposal``,
    # and a grant is on the one approval that gave one (``GET /grants`` declares its shape).
    # Its default is left out of the schema: FastAPI's response schemas leave defaults out, and
    # the OpenAPI and MCP's outputSchema declare one and the same type.
    grant: dict[str, Any] | None = Field(
        None,
        description="The standing grant given with its approval, when one was asked for",
        json_schema_extra=_no_default,
    )
