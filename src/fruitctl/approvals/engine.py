"""The approval engine: proposals through PENDING -> APPROVED -> EXECUTED (or REJECTED, EXPIRED,
FAILED), executed exactly once, each step in one transaction with its audit row.

- **Claim.** Approving is one conditional UPDATE (``WHERE status = 'PENDING'``) in an IMMEDIATE
  transaction: of two racing approvals - threads or processes - exactly one wins.
- **Bound to the target.** The proposal keeps a before-snapshot of everything it will touch; if
  that changed before execution, the proposal fails with ``conflict`` and the differences.
- **Exactly once.** Execution runs under ``domain.writes.writing(proposal_id)``: each backend
  write records its token with the write itself. A process killed while executing leaves the
  proposal APPROVED with a dead claim; ``recover()`` runs it again, which replays what was done
  and does the rest - never twice. Killed before verifying, it simply becomes PENDING again.
- **Direct writes** (allowed without approval) take the same path, already approved, so they are
  exactly-once, audited, idempotent by key, and can be undone like any proposal.
- **Decided through the gateway.** ``Gateway.decide`` asks the policy again before it calls
  ``approve`` (which takes that allowing ``Decision``); a refusal is ``hold``: the proposal stays
  PENDING with the reason. No front door calls this engine to decide.
- **Nothing changed is not a success.** An execution whose every item failed (the seed's
  partial-failure answer with nothing done) ends FAILED with the reasons.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from pydantic import BaseModel
from sqlalchemy import Connection, Engine, text

from fruitctl.approvals import claims, views
from fruitctl.approvals.audit import AuditLog, canonical
from fruitctl.approvals.changes import differences, unknown_change
from fruitctl.domain.errors import (
    Conflict,
    ExecutionFailed,
    FruitctlError,
    InvalidParams,
    PermissionDenied,
    ProposalExpired,
    ProposalNotFound,
    from_code,
)
from fruitctl.domain.writes import writing
from fruitctl.policy.decision import Actor, Decision
from fruitctl.tools.context import ToolContext
from fruitctl.tools.model import Change, Tool
from fruitctl.tools.registry import ToolRegistry

Runner = Callable[[Tool, BaseModel], Any]
COLUMNS = (
    "id, tool, args, args_hash, summary, actor, actor_kind, status, created_at, expires_at, "
    "resolved_at, resolved_by, reason, before, verified, claim, result, error, inverse, undo_of, "
    "idempotency_key, trace_id"
)


@dataclass(frozen=True)
class Filed:
    """A pending proposal as a person is about to decide it: the stored call and whose it is."""

    id: str
    tool: str
    args: dict[str, Any]
    origin: Actor
    trace_id: str | None


class Approvals:
    def __init__(
        self,
        engine: Engine,
        audit: AuditLog,
        registry: ToolRegistry,
        context: ToolContext,
        run: Runner,
        ttl_seconds: float,
    ) -> None:
        self._reader = engine
        self._writer = engine.execution_options(fruitctl_write=True)
        self._audit = audit
        self._registry = registry
        self._context = context
        self._run = run
        self._ttl = ttl_seconds
        self._me = claims.of_this_process()

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
        filing = {"trace_id": trace_id, "undo_of": undo_of}
        row = self._file(tool, args, actor, key, status="PENDING", **filing)
        return views.pending(row, self.page_url(row["id"]))

    def execute_direct(
        self,
        tool: Tool,
        args: BaseModel,
        actor: Actor,
        key: str | None = None,
        *,
        trace_id: str | None = None,
    ) -> Any:
        """A write the policy allows: recorded as an approved proposal and executed at once.
        Its answer is the tool's own, a batch with failed items included."""
        row = self._file(tool, args, actor, key, status="APPROVED", trace_id=trace_id)
        if row["status"] != "APPROVED" or row["claim"] != self._me:  # an idempotent repeat
            return self._outcome(row)
        return self._outcome(self._execute(row))

    def _file(
        self,
        tool: Tool,
        args: BaseModel,
        actor: Actor,
        key: str | None,
        status: str,
        trace_id: str | None = None,
        undo_of: str | None = None,
    ) -> dict[str, Any]:
        plain = args.model_dump(mode="json", exclude_unset=True)
        digest = hashlib.sha256(canonical([tool.name, plain]).encode()).hexdigest()
        if key is not None and (earlier := self._by_key(actor, key)) is not None:
            if earlier["args_hash"] != digest:
                raise InvalidParams(
                    f"Idempotency key '{key}' was used before with different arguments."
                )
            return earlier
        change = self._change(tool.name)
        now = time.time()
        row: dict[str, Any] = {
            "id": "p" + secrets.token_hex(8),
            "tool": tool.name,
            "args": canonical(plain),
            "args_hash": digest,
            "summary": change.summary(plain, self._context),
            "actor": actor.label,
            "actor_kind": actor.kind,
            "status": status,
            "created_at": now,
            "expires_at": now + self._ttl,
            "before": canonical(change.snapshot(plain, self._context)),
            "idempotency_key": key,
            "claim": self._me if status == "APPROVED" else None,
            "verified": status == "APPROVED",
            "resolved_at": now if status == "APPROVED" else None,
            "resolved_by": actor.label if status == "APPROVED" else None,
            "trace_id": trace_id,
            "undo_of": undo_of,
        }
        event = "direct_write" if status == "APPROVED" else "proposal_created"
        with self._writer.begin() as conn:
            conn.execute(text(_insert(row)), row)
            self._log(conn, event, actor.label, row, {"summary": row["summary"], "args": plain})
        return self._row(row["id"])

    # -- reading -------------------------------------------------------------------------------

    def get(self, proposal_id: str, actor: Actor | None = None) -> dict[str, Any]:
        """A proposal; an agent only ever sees its own (others do not exist for it)."""
        self.expire_due()
        row = self._row(proposal_id)
        if actor is not None and actor.kind == "agent" and row["actor"] != actor.label:
            raise ProposalNotFound(f"No proposal found with ID: '{proposal_id}'.")
        return self._view(row)

    def recent(
        self, status: str | None = None, limit: int = 100, actor: Actor | None = None
    ) -> list[dict[str, Any]]:
        """Proposals newest first, optionally of one status; an agent ``actor`` sees only its
        own (as in ``get``)."""
        self.expire_due()
        conditions = ["status = :status"] if status else []
        if actor is not None and actor.kind == "agent":
            conditions.append("actor = :actor")
        where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
        query = f"SELECT {COLUMNS} FROM proposals {where} ORDER BY created_at DESC LIMIT :limit"
        values = {"status": (status or "").upper(), "limit": limit, "actor": actor and actor.label}
        with self._reader.connect() as conn:
            rows = conn.execute(text(query), values)
            return [self._view(dict(r._mapping)) for r in rows]

    # -- deciding (people only, through Gateway.decide) -----------------------------------------

    def awaiting(self, proposal_id: str, actor: Actor) -> Filed:
        """The pending proposal ``actor`` (a person) is about to approve, for the policy to
        judge first; not found, expired or already decided is an error."""
        _person(actor, "approve")
        self.expire_due()
        with self._reader.connect() as conn:
            row = self._pending(conn, proposal_id)
        kind, _, name = row["actor"].partition(":")
        origin = Actor("human" if kind == "human" else "agent", name)
        return Filed(row["id"], row["tool"], json.loads(row["args"]), origin, row["trace_id"])

    def approve(self, proposal_id: str, actor: Actor, allowed: Decision) -> dict[str, Any]:
        """Claim and execute a proposal the policy has just allowed for ``actor`` (``allowed``:
        that decision). Raises its error if it fails, or if it changed nothing."""
        if allowed.verdict != "allow":
            raise PermissionDenied(f"Proposal {proposal_id} cannot run: {allowed.reason}")
        _person(actor, "approve")
        self.expire_due()
        with self._writer.begin() as conn:
            row = self._pending(conn, proposal_id)
            claimed = conn.execute(
                text(
                    "UPDATE proposals SET status = 'APPROVED', resolved_at = :now, "
                    "resolved_by = :who, claim = :claim, reason = NULL "
                    "WHERE id = :id AND status = 'PENDING'"
                ),
                {"now": time.time(), "who": actor.label, "claim": self._me, "id": proposal_id},
            )
            if claimed.rowcount != 1:  # pragma: no cover - the IMMEDIATE lock makes this moot
                raise Conflict(f"Proposal {proposal_id} was decided by someone else.")
            self._log(conn, "approved", actor.label, row, {})
        done = self._execute(self._verify(self._row(proposal_id)))
        if done["status"] == "FAILED":
            raise self._error_of(done)
        return self._view(done)

    def hold(self, proposal_id: str, actor: Actor, refused: Decision) -> None:
        """An approval the policy refused. The proposal stays PENDING with the reason: what
        refused it - the mode, an allowlist, a rate limit - is the person's to change, and
        the proposal's TTL still ends it if nobody does."""
        with self._writer.begin() as conn:
            row = self._pending(conn, proposal_id)
            conn.execute(
                text("UPDATE proposals SET reason = :reason WHERE id = :id AND status = 'PENDING'"),
                {"reason": f"Approval refused: {refused.reason}", "id": proposal_id},
            )
            payload = {"code": refused.code, "reason": refused.reason}
            self._log(conn, "approval_refused", actor.label, row, payload)

    def reject(self, proposal_id: str, actor: Actor, reason: str | None = None) -> dict[str, Any]:
        _person(actor, "reject")
        self.expire_due()
        with self._writer.begin() as conn:
            row = self._pending(conn, proposal_id)
            conn.execute(
                text(
                    "UPDATE proposals SET status = 'REJECTED', resolved_at = :now, "
                    "resolved_by = :who, reason = :reason WHERE id = :id AND status = 'PENDING'"
                ),
                {"now": time.time(), "who": actor.label, "reason": reason, "id": proposal_id},
            )
            self._log(conn, "rejected", actor.label, row, {"reason": reason})
        return self._view(self._row(proposal_id))

    def inverse_of(self, proposal_id: str, actor: Actor) -> tuple[str, dict[str, Any]]:
        """The ``(tool, args)`` that restores what an executed proposal changed, for
        ``Gateway.decide`` to file (``propose(..., undo_of=proposal_id)``)."""
        _person(actor, "undo")
        row = self._row(proposal_id)
        if row["status"] != "EXECUTED":
            raise Conflict(
                f"Proposal {proposal_id} is {row['status']}; only an executed one can be undone."
            )
        inverse = json.loads(row["inverse"] or "null")
        if inverse is None:
            raise InvalidParams(f"Proposal {proposal_id} ({row['tool']}) cannot be undone.")
        return str(inverse["tool"]), dict(inverse["args"])

    # -- time and crashes ----------------------------------------------------------------------

    def expire_due(self) -> int:
        now = time.time()
        with self._reader.connect() as conn:
            due = (
                conn.execute(
                    text("SELECT id FROM proposals WHERE status = 'PENDING' AND expires_at < :now"),
                    {"now": now},
                )
                .scalars()
                .all()
            )
        if not due:
            return 0
        with self._writer.begin() as conn:
            for proposal_id in due:
                done = conn.execute(
                    text(
                        "UPDATE proposals SET status = 'EXPIRED', resolved_at = :now, "
                        "resolved_by = 'system:ttl' WHERE id = :id AND status = 'PENDING'"
                    ),
                    {"now": now, "id": proposal_id},
                )
                if done.rowcount:
                    self._log(conn, "expired", "system:ttl", {"id": proposal_id}, {})
        return len(due)

    def recover(self) -> list[str]:
        """Finish what a killed process left APPROVED (replaying its recorded writes), or
        return it to PENDING if it had not been verified - so nothing runs twice."""
        with self._reader.connect() as conn:
            stuck = conn.execute(
                text(f"SELECT {COLUMNS} FROM proposals WHERE status = 'APPROVED'")
            ).all()
        recovered = []
        for found in stuck:
            row = dict(found._mapping)
            if row["claim"] is None or not claims.is_dead(row["claim"]):
                continue
            if self._take_over(row):
                recovered.append(row["id"])
        return recovered

    def _take_over(self, row: dict[str, Any]) -> bool:
        with self._writer.begin() as conn:
            if not row["verified"]:
                back = conn.execute(
                    text(
                        "UPDATE proposals SET status = 'PENDING', claim = NULL, resolved_at = "
                        "NULL, resolved_by = NULL WHERE id = :id AND claim = :claim"
                    ),
                    {"id": row["id"], "claim": row["claim"]},
                )
                if back.rowcount:
                    self._log(conn, "recovered", "system:recovery", row, {"to": "PENDING"})
                return bool(back.rowcount)
            took = conn.execute(
                text("UPDATE proposals SET claim = :me WHERE id = :id AND claim = :claim"),
                {"me": self._me, "id": row["id"], "claim": row["claim"]},
            )
            if not took.rowcount:
                return False
            self._log(conn, "recovered", "system:recovery", row, {"to": "EXECUTED"})
        with contextlib.suppress(FruitctlError):  # a failure is recorded as FAILED
            self._execute(self._row(row["id"]))
        return True

    # -- execution -----------------------------------------------------------------------------

    def _verify(self, row: dict[str, Any]) -> dict[str, Any]:
        """Is the target still as it was when the proposal was filed? If not: conflict."""
        before = json.loads(row["before"])
        now = self._change(row["tool"]).current(before, self._context)
        changed = differences(before, now)
        if changed:
            error = Conflict(
                f"What proposal {row['id']} would change has changed since it was filed.",
                changes=changed,
            )
            self._finish(row, "FAILED", error=error.to_dict())
            raise error
        with self._writer.begin() as conn:
            conn.execute(
                text("UPDATE proposals SET verified = 1 WHERE id = :id"), {"id": row["id"]}
            )
        return self._row(row["id"])

    def _execute(self, row: dict[str, Any]) -> dict[str, Any]:
        tool = self._tool(row["tool"])
        args = json.loads(row["args"])
        try:
            with writing(row["id"]):
                output = self._run(tool, tool.parse(args))
        except FruitctlError as exc:
            self._finish(row, "FAILED", error=exc.to_dict())
            raise
        failed = _nothing_done(output)
        if failed is not None:
            reasons = " ".join(dict.fromkeys(str(item.get("error")) for item in failed))
            error = ExecutionFailed(f"Nothing was changed: {reasons}", failed=failed)
            return self._finish(row, "FAILED", result=output, error=error.to_dict())
        inverse = self._change(row["tool"]).inverse(args, json.loads(row["before"]), output)
        return self._finish(row, "EXECUTED", result=output, inverse=inverse)

    def _finish(self, row: dict[str, Any], status: str, **outcome: Any) -> dict[str, Any]:
        values = {
            "id": row["id"],
            "status": status,
            "result": canonical(outcome.get("result")) if "result" in outcome else None,
            "error": canonical(outcome["error"]) if "error" in outcome else None,
            "inverse": canonical(outcome.get("inverse")),
        }
        with self._writer.begin() as conn:
            conn.execute(
                text(
                    "UPDATE proposals SET status = :status, result = :result, error = :error, "
                    "inverse = :inverse, claim = NULL WHERE id = :id AND status = 'APPROVED'"
                ),
                values,
            )
            event = "executed" if status == "EXECUTED" else "failed"
            payload = {"error": outcome["error"]} if "error" in outcome else {}
            self._log(conn, event, row["resolved_by"] or "system", row, payload)
        return self._row(row["id"])

    # -- helpers -------------------------------------------------------------------------------

    def _pending(self, conn: Connection, proposal_id: str) -> dict[str, Any]:
        found = conn.execute(
            text(f"SELECT {COLUMNS} FROM proposals WHERE id = :id"), {"id": proposal_id}
        ).first()
        if found is None:
            raise ProposalNotFound(f"No proposal found with ID: '{proposal_id}'.")
        row = dict(found._mapping)
        if row["status"] == "EXPIRED":
            raise ProposalExpired(
                f"Proposal {proposal_id} expired at {views.moment(row['expires_at'])}."
            )
        if row["status"] != "PENDING":
            raise Conflict(
                f"Proposal {proposal_id} is already {row['status']}.", status=row["status"]
            )
        return row

    def _row(self, proposal_id: str) -> dict[str, Any]:
        with self._reader.connect() as conn:
            found = conn.execute(
                text(f"SELECT {COLUMNS} FROM proposals WHERE id = :id"), {"id": proposal_id}
            ).first()
        if found is None:
            raise ProposalNotFound(f"No proposal found with ID: '{proposal_id}'.")
        return dict(found._mapping)

    def _by_key(self, actor: Actor, key: str) -> dict[str, Any] | None:
        with self._reader.connect() as conn:
            found = conn.execute(
                text(
                    f"SELECT {COLUMNS} FROM proposals WHERE actor = :actor AND "
                    "idempotency_key = :key"
                ),
                {"actor": actor.label, "key": key},
            ).first()
        return None if found is None else dict(found._mapping)

    def _tool(self, name: str) -> Tool:
        tool = self._registry.get(name)
        if tool is None:
            raise InvalidParams(f"Proposal tool '{name}' is not registered.")
        return tool

    def _view(self, row: dict[str, Any]) -> dict[str, Any]:
        return views.proposal(row, self._change(row["tool"]))

    def _change(self, name: str) -> Change:
        tool = self._registry.get(name)
        return tool.change if tool is not None and tool.change else unknown_change(name)

    def _log(
        self, conn: Connection, event: str, actor: str, row: dict[str, Any], payload: dict[str, Any]
    ) -> None:
        self._audit.append(
            conn,
            event=event,
            actor=actor,
            proposal_id=row["id"],
            tool=row.get("tool"),
            payload=payload,
        )

    def _outcome(self, row: dict[str, Any]) -> Any:
        """What a direct write answers: its result (a batch that failed item by item keeps
        the tool's own answer), or the error it failed with."""
        if row["status"] == "FAILED" and row["result"] is None:
            raise self._error_of(row)
        if row["status"] in ("EXECUTED", "FAILED"):
            return json.loads(row["result"] or "null")
        return views.pending(row, self.page_url(row["id"]))

    @staticmethod
    def _error_of(row: dict[str, Any]) -> FruitctlError:
        error = json.loads(row["error"] or "{}")
        return from_code(
            error.get("code"), error.get("message", "failed"), **error.get("details", {})
        )


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


def _insert(row: dict[str, Any]) -> str:
    names = ", ".join(row)
    return f"INSERT INTO proposals ({names}) VALUES ({', '.join(':' + n for n in row)})"
