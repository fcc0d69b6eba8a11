"""A policy decision: what happens to a call, and why (always a reason)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from fruitctl.domain.errors import ApprovalRequired, FruitctlError

Verdict = Literal["allow", "propose", "deny"]


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str
    error: FruitctlError | None = None
    """What the caller is told when the call does not simply run: the denial (mode_forbidden,
    list_not_allowed, ...), or ``approval_required`` for a proposal where none can be filed."""
    grant: str | None = None
    """The standing grant that allows an agent's write which would otherwise be proposed."""

    @property
    def code(self) -> str | None:
        return self.error.code if self.error is not None else None

    @classmethod
    def allow(cls, reason: str, grant: str | None = None) -> Decision:
        return cls("allow", reason, grant=grant)

    @classmethod
    def propose(cls, reason: str) -> Decision:
        return cls("propose", reason, ApprovalRequired(reason))

    @classmethod
    def deny(cls, error: FruitctlError) -> Decision:
        return cls("deny", error.message, error)
