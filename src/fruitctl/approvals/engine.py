"""The approval engine: proposals through PENDING -> APPROVED -> EXECUTED (or REJECTED, EXPIRED,
FAILED), executed exactly once, each step in one transaction with its audit row (``store``).

- **Taken once.** Approving is one conditional UPDATE (``WHERE status = 'PENDING'``) in an IMMEDIATE
  transaction: of two racing approvals - threads or processes - exactly one wins.
- **Bound to the target.** The proposal keeps a before-snapshot of everything it will touch; if
  that changed before execution, the proposal fails with ``conflict`` and the differences.
- **Exactly once.** Execution runs under ``domain.writes.writing(proposal_id)``: each backend
  write records its token with the write itself. A process killed while executing leaves the
  proposal APPROVED with a dead owner; ``recoverable()`` hands it to the gateway to run again,
  which replays what was done and does the rest - never twice. Killed before verifying, it
  simply becomes PENDING again.
- **Direct writes** (allowed without approval) take the same path, already approved, so they are
  exactly-once, audited, idempotent by key, and can be undone like any proposal.
- **Decided through the gateway.** ``Gateway.decide`` has the policy judge again before it calls
  ``take`` (which takes that allowing ``Decision``); a refusal is ``hold``: the proposal stays
  PENDING with the reason. No front door calls this engine to decide.
- **Files, claims, verifies, finishes; never runs a tool.** The gateway runs a taken proposal's
  tool (``Gateway``'s one call pipeline) and hands its ending back here: ``finished`` (EXECUTED,
  or FAILED when nothing changed), ``failed``, or ``unknown`` for one still running at its
  deadline, whose worker then records its true end - or, if the process dies first,
  ``recoverable()`` hands it back for the next start to replay.
- **Standing grants** (``approvals.grants``): a person approving may also allow the same tool
  for the same agent where the proposal reaches, for a while (``grant``); the policy then allows
  the agent's matching writes, which are filed here as direct writes carrying the grant's id.
- **Nothing changed is not a success.** An execution whose every item failed (the seed's
  partial-failure answer with nothing done) ends FAILED with the reasons.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import time
from typing import Any, cast

from pydantic import BaseModel

from fruitctl.approvals import owners, views
from fruitctl.approvals.allowance import Allowance
from fruitctl.approvals.audit import canonical
from fruitctl.approvals.changes import differences, unknown_change
from fruitctl.approvals.grants import GrantStore
from fruitctl.approvals.store import Proposal, ProposalStore
from fruitctl.domain.actors import Actor, identity_of
from fruitctl.domain.errors import (
    Conflict,
    ExecutionFailed,
    FruitctlError,
    InvalidParams,
    OutcomeUnknown,
    PermissionDenied,
    ProposalNotFound,
    StorageFault,
    StoreBusy,
    Unsupported,
    from_code,
)
from fruitctl.policy.decision import Decision
from fruitctl.tools.context import ToolContext
from fruitctl.tools.model import Change, Tool
from fruitctl.tools.registry import ToolRegistry


class Approvals:
    def __init__(
        self,
        store: ProposalStore,
        registry: ToolRegistry,
        context: ToolContext,
        ttl_seconds: float,
        grants: GrantStore | None = None,
    ) -> None:
        self.grants = grants
        """The standing grants (None: approving can grant nothing)."""
        self._store = store
        self._registry = registry
        self._context = context
        self._ttl = ttl_seconds
        self._me = owners.of_this_process()

    page_base: str | None = None
    """The base URL of the approval page (``http://127.0.0.1:8765``): set by the composition root
    from ``[http] public_url`` or by an HTTP server running in this process. Pending objects then
    carry ``url``; without one they carry null."""

    def page_url(self, proposal_id: str) -> str | None:
        """Where a person reviews this proposal in a browser, when a page is served."""
        if not self.page_base:
            return None
        return f"{self.page_base.rstrip('/')}/ui/proposals/{proposal_id}"

    # -- filing --------------------------------------------------------------------------------

    def propose(
        self,
        tool: Tool,
        args: BaseModel,
        actor: Actor,
        key: str | None = None,
        *,
        trace_id: str | None = None,
        undo_of: str | None = None,
    ) -> dict[str, Any]:
        """File a write for a person to approve; the agent gets the pending object at once."""
        filed = self._file(tool, args, actor, key, trace_id=trace_id, undo_of=undo_of)
        return views.pending(filed, self.page_url(filed.id))

    def file_direct(
        self,
        tool: Tool,
        args: BaseModel,
        actor: Actor,
        key: str | None = None,
        *,
        trace_id: str | None = None,
        grant: str | None = None,
    ) -> Proposal:
        """A write the policy allows, recorded as a proposal approved already: for the gateway
        to run when ``runs_here`` says so, else (an idempotent repeat) settled by ``outcome``.
        ``grant``: the standing grant that allowed it, kept as its reason and in its audit row."""
        return self._file(tool, args, actor, key, trace_id=trace_id, approved=True, grant=grant)

    def runs_here(self, filed: Proposal) -> bool:
        """Whether this process is to run ``filed`` now: approved, and taken by this process
        (not a repeat of one filed earlier under the same idempotency key)."""
        return filed.status == "APPROVED" and filed.owner == self._me

    def _file(
        self,
        tool: Tool,
        args: BaseModel,
        actor: Actor,
        key: str | None,
        *,
        trace_id: str | None,
        undo_of: str | None = None,
        approved: bool = False,
        grant: str | None = None,
    ) -> Proposal:
        plain = args.model_dump(mode="json", exclude_unset=True)
        digest = hashlib.sha256(canonical([tool.name, plain]).encode()).hexdigest()
        if key is not None and (earlier := self._store.by_key(actor.label, key)) is not None:
            if earlier.args_hash != digest:
                raise InvalidParams(
                    f"Idempotency key '{key}' was used before with different arguments."
                )
            return earlier
        change = self._change(tool.name)
        now = time.time()
        proposal = Proposal(
            id="p" + secrets.token_hex(8),
            tool=tool.name,
            args=plain,
            args_hash=digest,
            summary=change.summary(plain, self._context),
            actor=actor.shown,  # the identity, with the caller's display name under it
            actor_kind=actor.kind,
            status="APPROVED" if approved else "PENDING",
            created_at=now,
            expires_at=now + self._ttl,
            before=change.snapshot(plain, self._context),
            resolved_at=now if approved else None,
            resolved_by=actor.label if approved else None,
            verified=approved,
            owner=self._me if approved else None,
            reason=None if grant is None else f"Allowed by grant {grant}.",
            undo_of=undo_of,
            idempotency_key=key,
            trace_id=trace_id,
        )
        event = "direct_write" if approved else "proposal_created"
        payload: dict[str, Any] = {"summary": proposal.summary, "args": plain}
        if grant is not None:
            payload["grant"] = grant
        return self._store.add(proposal, event, payload)

    # -- reading -------------------------------------------------------------------------------

    def get(self, proposal_id: str, actor: Actor | None = None) -> dict[str, Any]:
        """A proposal; an agent only ever sees its own (others do not exist for it)."""
        self._expire_if_writable()
        found = self._store.get(proposal_id)
        if actor is not None and actor.kind == "agent" and identity_of(found.actor) != actor.label:
            raise ProposalNotFound.of(proposal_id)
        return self._view(found)

    def recent(
        self, status: str | None = None, limit: int = 100, actor: Actor | None = None
    ) -> list[dict[str, Any]]:
        """Proposals newest first, optionally of one status; an agent ``actor`` sees only its
        own (as in ``get``)."""
        self._expire_if_writable()
        own = actor.label if actor is not None and actor.kind == "agent" else None
        return [self._view(p) for p in self._store.recent(status, limit, own)]

    def arrivals(
        self, position: int | None, latest: int = 1
    ) -> tuple[int, int, list[dict[str, Any]]]:
        """Pending proposals filed after ``position`` (``ProposalStore.filed_after``): the new
        position, how many, and the ``latest`` of them (id, summary, actor), for a notifier."""
        end, count, found = self._store.filed_after(position, latest)
        shown = [{"id": p.id, "summary": p.summary, "actor": p.actor} for p in found]
        return end, count, shown

    # -- deciding (people only, through Gateway.decide) -----------------------------------------

    def awaiting(self, proposal_id: str, actor: Actor) -> Proposal:
        """The pending proposal ``actor`` (a person) is about to approve, for the policy to
        judge first; not found, expired or already decided is an error."""
        _person(actor, "approve")
        self.expire_due()
        return self._store.pending(proposal_id)

    def take(self, proposal_id: str, actor: Actor, allowed: Decision) -> Proposal:
        """Claim a proposal the policy has just allowed for ``actor`` (``allowed``: that
        decision) and verify its target is as it was filed: the proposal for the gateway to
        run. A conflict ends it FAILED and raises."""
        if allowed.verdict != "allow":
            raise PermissionDenied(f"Proposal {proposal_id} cannot run: {allowed.reason}")
        _person(actor, "approve")
        self.expire_due()
        return self._verify(self._store.take(proposal_id, actor.label, self._me))

    def hold(self, proposal_id: str, actor: Actor, refused: Decision) -> None:
        """An approval the policy refused. The proposal stays PENDING with the reason: what
        refused it - the mode, an allowlist, a rate limit - is the person's to change, and
        the proposal's TTL still ends it if nobody does."""
        payload = {"code": refused.code, "reason": refused.reason}
        reason = f"Approval refused: {refused.reason}"
        self._store.hold(proposal_id, actor.label, reason, payload)

    def reject(self, proposal_id: str, actor: Actor, reason: str | None = None) -> dict[str, Any]:
        _person(actor, "reject")
        self.expire_due()
        return self._view(self._store.reject(proposal_id, actor.label, reason))

    def inverse_of(self, proposal_id: str, actor: Actor) -> tuple[str, dict[str, Any]]:
        """The ``(tool, args)`` that restores what an executed proposal changed, for
        ``Gateway.decide`` to file (``propose(..., undo_of=proposal_id)``)."""
        _person(actor, "undo")
        found = self._store.get(proposal_id)
        if found.status != "EXECUTED":
            raise Conflict(
                f"Proposal {proposal_id} is {found.status}; only an executed one can be undone."
            )
        if found.inverse is None:
            raise InvalidParams(f"Proposal {proposal_id} ({found.tool}) cannot be undone.")
        return str(found.inverse["tool"]), dict(found.inverse["args"])

    # -- standing grants (people only) ----------------------------------------------------------

    def grant(
        self, approved: Proposal, actor: Actor, allowance: Allowance, reached: set[str] | None
    ) -> dict[str, Any]:
        """Allow ``approved``'s tool for its agent, on ``reached`` (the containers it reaches;
        None, or scope ``tool``: the whole tool), for ``allowance.seconds``: the grant's view."""
        grants = self._grants(actor, "grant")
        scope = sorted(reached) if allowance.scope == "list" and reached else None
        return grants.add(
            tool=approved.tool,
            agent=identity_of(approved.actor),
            scope=scope,
            seconds=allowance.seconds,
            by=actor.label,
            proposal_id=approved.id,
        ).view()

    def grants_listed(self, every: bool = False, limit: int = 100) -> list[dict[str, Any]]:
        """The live grants newest first (``every``: the ended ones too)."""
        if self.grants is None:
            return []
        return [grant.view() for grant in self.grants.listed(every, limit)]

    def revoke(self, grant_id: str, actor: Actor) -> dict[str, Any]:
        return self._grants(actor, "revoke").revoke(grant_id, actor.label).view()

    def revoke_all(self, by: str, reason: str) -> list[str]:
        """End every live grant (entering LOCKDOWN): their ids."""
        return [] if self.grants is None else self.grants.revoke_all(by, reason)

    def _grants(self, actor: Actor, action: str) -> GrantStore:
        if actor.kind != "human":
            raise PermissionDenied.grant_by_agent(action)
        if self.grants is None:
            raise Unsupported("Standing grants are not available in this gateway.")
        return self.grants

    # -- time and crashes ----------------------------------------------------------------------

    def expire_due(self) -> int:
        return self._store.expire_due()

    def _expire_if_writable(self) -> None:
        """Before a read: mark what is due EXPIRED - unless the store cannot be written now
        (another process's write, a read-only disk). A read never fails for that; what it
        shows is then as stored, and the next write (``take`` above all) checks expiry itself."""
        with contextlib.suppress(StoreBusy, StorageFault):
            self.expire_due()

    def recoverable(self) -> list[Proposal]:
        """What a killed process left APPROVED: one it had not verified goes back to PENDING;
        one it was executing is taken over by this process and returned, for the gateway to
        run again (its recorded writes replay, the rest run) - so nothing runs twice."""
        taken = []
        for stuck in self._store.approved():
            if stuck.owner is None or not owners.is_dead(stuck.owner):
                continue
            if not stuck.verified:
                self._store.release(stuck)
            elif self._store.take_over(stuck, self._me):
                taken.append(self._store.get(stuck.id))
        return taken

    # -- execution -----------------------------------------------------------------------------

    def _verify(self, taken: Proposal) -> Proposal:
        """Is the target still as it was when the proposal was filed? If not: conflict."""
        now = self._change(taken.tool).current(taken.before, self._context)
        changed = differences(taken.before, now)
        if changed:
            error = Conflict(
                f"What proposal {taken.id} would change has changed since it was filed.",
                changes=changed,
            )
            self._store.finish(taken, "FAILED", error=error.to_dict())
            raise error
        return self._store.verified(taken.id)

    def finished(self, approved: Proposal, output: Any) -> Proposal:
        """The tool ran: EXECUTED with its answer and undo - or FAILED, with the reasons, when
        its answer is a batch in which nothing changed."""
        failed = _nothing_done(output)
        if failed is not None:
            reasons = " ".join(dict.fromkeys(str(item.get("error")) for item in failed))
            error = ExecutionFailed(f"Nothing was changed: {reasons}", failed=failed)
            return self._store.finish(approved, "FAILED", result=output, error=error.to_dict())
        change = self._change(approved.tool)
        inverse = change.inverse(approved.args, approved.before, output)
        return self._store.finish(approved, "EXECUTED", result=output, inverse=inverse)

    def failed(self, approved: Proposal, error: FruitctlError) -> None:
        """The tool failed, or never started (a no-op if its execution ended itself)."""
        self._store.finish(approved, "FAILED", error=error.to_dict())

    def unknown(self, approved: Proposal, error: OutcomeUnknown) -> None:
        """Its deadline passed while it ran: the audit says the outcome is unknown, and the
        proposal stays APPROVED until the execution records how it ended."""
        self._store.unknown(approved, error.to_dict())

    def settled(self, done: Proposal) -> dict[str, Any]:
        """An approved proposal as it ended: its view, or the error it failed with."""
        if done.status == "FAILED":
            raise _error_of(done)
        return self._view(done)

    # -- helpers -------------------------------------------------------------------------------

    def _view(self, proposal: Proposal) -> dict[str, Any]:
        return views.proposal(proposal, self._change(proposal.tool))

    def _change(self, name: str) -> Change:
        tool = self._registry.get(name)
        return tool.change if tool is not None and tool.change else unknown_change(name)

    def outcome(self, proposal: Proposal) -> Any:
        """What a direct write answers: its result (a batch that failed item by item keeps
        the tool's own answer), or the error it failed with."""
        if proposal.status == "FAILED" and proposal.result is None:
            raise _error_of(proposal)
        if proposal.status in ("EXECUTED", "FAILED"):
            return proposal.result
        return views.pending(proposal, self.page_url(proposal.id))


def _error_of(proposal: Proposal) -> FruitctlError:
    error = proposal.error or {}
    return from_code(error.get("code"), error.get("message", "failed"), **error.get("details", {}))


def _nothing_done(output: Any) -> list[dict[str, Any]] | None:
    """The failed items of a batch answer (``{"created"|"updated"|"deleted": [...], "failed":
    [...]}``) in which nothing succeeded; None when something did, or for any other answer."""
    if not isinstance(output, dict) or not output.get("failed"):
        return None
    done = [value for key, value in output.items() if key != "failed"]
    if done and all(value == [] for value in done):
        return cast(list[dict[str, Any]], output["failed"])
    return None


def _person(actor: Actor, action: str) -> None:
    if actor.kind != "human":
        raise PermissionDenied(f"Only a person can {action} a proposal; agents can only read it.")
