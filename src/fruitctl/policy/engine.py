"""The policy: for each call, allow, propose (a human must approve) or deny - with a reason.

Governance wraps execution: tools never ask which mode they are in. The checks, in order:
the mode (forbidden / needs approval / allowed), the arguments (the tool's target rules: paths,
lists - see ``policy.targets``), then rate limits. A denial wins over a proposal.

A person approving an agent's proposal is judged the same way, on the stored arguments: the
mode for the person, and the agent's own rules (allowlists, its rate limit) for the write that
is the agent's. ``origin`` names whose write a call is when that is not the caller.

Last, a standing grant (``approvals.grants``): an agent's write that would be proposed, inside
a live grant a person gave it, is allowed - never in LOCKDOWN, and never a write that anything
above refused (a grant cannot widen an allowlist or a mode).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import FruitctlError, ModeForbidden, RateLimited
from fruitctl.policy.decision import Decision
from fruitctl.policy.governance import Governance, ToolRules
from fruitctl.policy.modes import ModeStore
from fruitctl.policy.reload import LiveGovernance
from fruitctl.tools.context import ToolContext
from fruitctl.tools.model import Mode, Tool

HOUR = 3600.0


class GrantBook(Protocol):
    def matching(self, tool: str, agent: str, reaches: Callable[[], set[str] | None]) -> str | None:
        """The id of a live grant covering ``agent`` calling ``tool`` where ``reaches()`` says
        the call reaches, else None."""
        ...


class CallCounter(Protocol):
    def recent(
        self, tool: str, since: float, actor: str | None = None, besides: str | None = None
    ) -> list[float]:
        """When ``tool`` ran since ``since`` (by ``actor`` if given; leaving out the calls of
        trace ``besides``), oldest first."""
        ...


@dataclass
class Policy:
    governance: Governance | LiveGovernance
    """The rules; in a running process, governance.yaml as it is now (``policy.reload``)."""
    modes: ModeStore
    calls: CallCounter
    grants: GrantBook | None = None
    """The standing grants people gave (``approvals.grants``); None: no grant counts."""

    def judge(
        self,
        tool: Tool,
        args: Any,
        actor: Actor,
        ctx: ToolContext,
        *,
        origin: Actor | None = None,
        filed_as: str | None = None,
    ) -> Decision:
        """The verdict on ``actor`` calling ``tool`` with ``args`` now. ``origin``: whose write
        it is, when not the caller's (a person approving an agent's proposal); ``filed_as``:
        the trace of that proposal's filing, which already counted toward the rate limits."""
        rules = self.governance.of(tool.name)
        mode = self.modes.get()
        decision = _by_mode(tool.name, rules, mode, actor)
        if decision.verdict == "deny":
            return decision
        whose = origin or actor
        for target in tool.targets:
            if target.binds == "agents" and whose.kind != "agent":
                continue
            try:
                target.check(args, rules, ctx)
            except FruitctlError as exc:
                return Decision.deny(exc)
        limited = self._rate_limit(tool.name, rules, whose, filed_as)
        if limited is None and decision.verdict == "propose" and mode != "LOCKDOWN":
            return self._granted(tool, args, actor, ctx) or decision
        return limited or decision

    def _granted(self, tool: Tool, args: Any, actor: Actor, ctx: ToolContext) -> Decision | None:
        """An allowing decision when a live grant covers this agent's call, else None."""
        if self.grants is None or actor.kind != "agent":
            return None
        grant = self.grants.matching(tool.name, actor.label, lambda: reached(tool, args, ctx))
        if grant is None:
            return None
        return Decision.allow(f"{tool.name} is allowed for {actor.label} by grant {grant}.", grant)

    def _rate_limit(
        self, name: str, rules: ToolRules, actor: Actor, besides: str | None
    ) -> Decision | None:
        now = time.time()
        for limit, who in (
            (rules.rate_limit_per_hour, None),
            (rules.rate_limit_per_actor_per_hour, actor.label),
        ):
            if limit is None:
                continue
            times = self.calls.recent(name, now - HOUR, who, besides)
            if len(times) >= limit:
                # Room opens when the call that put the count at the limit leaves the window.
                opens = times[len(times) - limit] + HOUR if limit else now + HOUR
                retry = max(1, round(opens - now))
                scope = f" for {who}" if who else ""
                return Decision.deny(
                    RateLimited(
                        f"{name} is limited to {limit} calls an hour{scope}; retry in {retry} s.",
                        retryAfterSeconds=retry,
                    )
                )
        return None


def reached(tool: Tool, args: Any, ctx: ToolContext) -> set[str] | None:
    """The containers a call reaches (``list:Inbox``), as its tool's target rules name them;
    None when no rule names any (a grant on it then covers the whole tool)."""
    naming = [target.reaches for target in tool.targets if target.reaches is not None]
    if not naming:
        return None
    return {name for reaches in naming for name in reaches(args, ctx)}


def _by_mode(name: str, rules: ToolRules, mode: Mode, actor: Actor) -> Decision:
    verdict = rules.verdict(mode)
    if verdict == "allow":
        return Decision.allow(f"{name} is allowed in {mode} mode.")
    if verdict == "approve":
        if actor.kind == "human":
            return Decision.allow(f"{name} needs approval in {mode} mode; a person is calling.")
        return Decision.propose(f"{name} needs a person's approval in {mode} mode.")
    return Decision.deny(ModeForbidden(f"{name} is not allowed in {mode} mode.", mode=mode))
