"""A policy decision: what happens to a call, and why (always a reason)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Verdict = Literal["allow", "propose", "deny"]


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str
    code: str | None = None
    """For a denial: the canonical error code (mode_forbidden, list_not_allowed, ...)."""
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def allow(cls, reason: str) -> Decision:
        return cls("allow", reason)

    @classmethod
    def propose(cls, reason: str) -> Decision:
        return cls("propose", reason, "approval_required")

    @classmethod
    def deny(cls, code: str, reason: str, **details: Any) -> Decision:
        return cls("deny", reason, code, details)


@dataclass(frozen=True)
class Actor:
    """Who calls. Only a human may approve; a human's own writes need no approval."""

    kind: Literal["agent", "human"]
    name: str

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.name}"
