"""The proposals table (``state.db``, migration ``0002_approvals``): a stored proposal is a
``Proposal``, and each step of one is one conditional statement written with its audit row in
one transaction. Which step to take, and when, is the engine's (``approvals.engine``); this
module only knows how each is written down, so that a step that lost a race changes nothing.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import Connection, Engine, text

from fruitctl.approvals.audit import AuditLog, canonical
from fruitctl.domain.actors import Actor
from fruitctl.domain.dates import format_epoch
from fruitctl.domain.errors import Conflict, ProposalExpired, ProposalNotFound

COLUMNS = (
    "id, tool, args, args_hash, summary, actor, actor_kind, status, created_at, expires_at, "
    "resolved_at, resolved_by, reason, before, verified, claim AS owner, result, error, inverse, "
    "undo_of, "
    "idempotency_key, trace_id"
)
_JSON = ("args", "before", "result", "error", "inverse")  # stored as canonical JSON text
_SELECT = f"SELECT {COLUMNS} FROM proposals"
# The store's clock, in epoch seconds: every expiry decision is taken by SQLite inside the
# statement that acts on it, so two processes - whatever their own clocks say - agree.
STORE_NOW = "((julianday('now') - 2440587.5) * 86400.0)"
_EXPIRE = text(
    "UPDATE proposals SET status = 'EXPIRED', resolved_at = :now, resolved_by = 'system:ttl' "
    f"WHERE id = :id AND status = 'PENDING' AND expires_at <= {STORE_NOW}"
)
# A proposal's actor is stored as shown (``agent:uid:1000/claude``); who filed it is the identity
# before the display name, so renaming never changes whose proposals these are.
_BY_IDENTITY = "(actor = :actor OR substr(actor, 1, length(:actor) + 1) = :actor || '/')"


@dataclass(frozen=True)
class Proposal:
    """A write someone asked for (``tool`` with ``args``), and where it stands."""

    id: str
    tool: str
    args: dict[str, Any]
    args_hash: str
    summary: str
    actor: str
    """Who asked for it: ``agent:<name>`` or ``human:<name>``."""
    actor_kind: str
    status: str
    """PENDING, APPROVED (being executed), EXECUTED, REJECTED, EXPIRED or FAILED."""
    created_at: float
    expires_at: float
    before: Any
    """What the write will touch, as it was when it was filed."""
    resolved_at: float | None = None
    resolved_by: str | None = None
    reason: str | None = None
    verified: bool = False
    """Whether the target was found unchanged just before executing."""
    owner: str | None = None
    """The process executing it (``owners``); None when none is. Its column is ``claim`` (named
    so since seed 003; renaming it would take a migration)."""
    result: Any = None
    error: dict[str, Any] | None = None
    inverse: dict[str, Any] | None = None
    """``{"tool", "args"}`` that restores what it changed, once executed (None: no undo)."""
    undo_of: str | None = None
    idempotency_key: str | None = None
    trace_id: str | None = None

    @property
    def origin(self) -> Actor:
        """Who asked for it, as an actor."""
        return Actor.parse(self.actor)

    @classmethod
    def from_row(cls, row: Any) -> Proposal:
        values = dict(row._mapping)
        for name in _JSON:
            values[name] = None if values[name] is None else json.loads(values[name])
        values["verified"] = bool(values["verified"])
        return cls(**values)

    def to_row(self) -> dict[str, Any]:
        values = asdict(self)
        values["claim"] = values.pop("owner")  # the column's name (``Proposal.owner``)
        for name in _JSON:
            values[name] = None if values[name] is None else canonical(values[name])
        return values


class ProposalStore:
    def __init__(self, engine: Engine, audit: AuditLog) -> None:
        self._reader = engine
        self._writer = engine.execution_options(fruitctl_write=True)
        self._audit = audit

    # -- reading -------------------------------------------------------------------------------

    def get(self, proposal_id: str) -> Proposal:
        with self._reader.connect() as conn:
            return self._get(conn, proposal_id)

    def pending(self, proposal_id: str) -> Proposal:
        """The proposal if it waits for a decision; else not found, expired or decided."""
        with self._reader.connect() as conn:
            return self._pending(conn, proposal_id)

    def by_key(self, actor: str, key: str) -> Proposal | None:
        """The proposal ``actor`` filed with this idempotency key, if any."""
        query = f"{_SELECT} WHERE {_BY_IDENTITY} AND idempotency_key = :key"
        with self._reader.connect() as conn:
            found = conn.execute(text(query), {"actor": actor, "key": key}).first()
        return None if found is None else Proposal.from_row(found)

    def recent(self, status: str | None, limit: int, actor: str | None) -> list[Proposal]:
        """Newest first, of one status if given, only ``actor``'s if given."""
        conditions = ["status = :status"] if status else []
        if actor is not None:
            conditions.append(_BY_IDENTITY)
        where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
        query = f"{_SELECT} {where} ORDER BY created_at DESC LIMIT :limit"
        values = {"status": (status or "").upper(), "limit": limit, "actor": actor}
        with self._reader.connect() as conn:
            return [Proposal.from_row(r) for r in conn.execute(text(query), values)]

    def filed_after(self, position: int | None, latest: int) -> tuple[int, int, list[Proposal]]:
        """For announcing arrivals: where the table ends now (the position of the last proposal
        filed), how many filed after ``position`` still wait, and the ``latest`` of those, newest
        first. Positions are rowids: filing is serialised, so none can later appear at or before
        a position seen - a cursor misses nothing and counts nothing twice. ``position`` None:
        only where the table ends."""
        with self._reader.connect() as conn:
            end = conn.execute(text("SELECT coalesce(max(rowid), 0) FROM proposals")).scalar_one()
            if position is None:
                return int(end), 0, []
            where = "rowid > :after AND rowid <= :end AND status = 'PENDING' AND expires_at > :now"
            values = {"after": position, "end": end, "now": time.time(), "latest": latest}
            counted = f"SELECT count(*) FROM proposals WHERE {where}"
            count = conn.execute(text(counted), values).scalar_one()
            query = f"{_SELECT} WHERE {where} ORDER BY rowid DESC LIMIT :latest"
            found = [Proposal.from_row(r) for r in conn.execute(text(query), values)]
            return int(end), int(count), found

    def approved(self) -> list[Proposal]:
        """Every proposal being executed (or left so by a process that died)."""
        with self._reader.connect() as conn:
            found = conn.execute(text(f"{_SELECT} WHERE status = 'APPROVED'"))
            return [Proposal.from_row(r) for r in found]

    # -- steps ---------------------------------------------------------------------------------

    def add(self, proposal: Proposal, event: str, payload: dict[str, Any]) -> Proposal:
        row = proposal.to_row()
        names = ", ".join(row)
        insert = f"INSERT INTO proposals ({names}) VALUES ({', '.join(':' + n for n in row)})"
        with self._writer.begin() as conn:
            conn.execute(text(insert), row)
            self._log(conn, event, proposal.actor, proposal, payload)
        return self.get(proposal.id)

    def take(self, proposal_id: str, who: str, owner: str) -> Proposal:
        """PENDING -> APPROVED by ``who``, to be executed by the process ``owner`` names: one
        conditional UPDATE in an IMMEDIATE transaction, so of two racing approvals - threads or
        processes - exactly one wins. The same statement checks the proposal's time on the
        store's clock: one past it becomes EXPIRED instead, and taking it fails."""
        with self._writer.begin() as conn:
            found = self._pending(conn, proposal_id)
            taken = conn.execute(
                text(
                    "UPDATE proposals SET status = 'APPROVED', resolved_at = :now, "
                    "resolved_by = :who, claim = :owner, reason = NULL "
                    f"WHERE id = :id AND status = 'PENDING' AND expires_at > {STORE_NOW}"
                ),
                {"now": time.time(), "who": who, "owner": owner, "id": proposal_id},
            )
            won = taken.rowcount == 1  # else: past its time (the lock holds the status)
            if won:
                self._log(conn, "approved", who, found, {})
            else:
                self._expire(conn, proposal_id, time.time())
        if not won:
            raise ProposalExpired.at(proposal_id, format_epoch(found.expires_at))
        return self.get(proposal_id)

    def hold(self, proposal_id: str, who: str, reason: str, payload: dict[str, Any]) -> None:
        """Keep it PENDING with the reason an approval was refused."""
        with self._writer.begin() as conn:
            found = self._pending(conn, proposal_id)
            conn.execute(
                text("UPDATE proposals SET reason = :reason WHERE id = :id AND status = 'PENDING'"),
                {"reason": reason, "id": proposal_id},
            )
            self._log(conn, "approval_refused", who, found, payload)

    def reject(self, proposal_id: str, who: str, reason: str | None) -> Proposal:
        with self._writer.begin() as conn:
            found = self._pending(conn, proposal_id)
            conn.execute(
                text(
                    "UPDATE proposals SET status = 'REJECTED', resolved_at = :now, "
                    "resolved_by = :who, reason = :reason WHERE id = :id AND status = 'PENDING'"
                ),
                {"now": time.time(), "who": who, "reason": reason, "id": proposal_id},
            )
            self._log(conn, "rejected", who, found, {"reason": reason})
        return self.get(proposal_id)

    def expire_due(self) -> int:
        """PENDING -> EXPIRED for every proposal past its time on the store's clock; how many
        were due."""
        due = text(
            f"SELECT id FROM proposals WHERE status = 'PENDING' AND expires_at <= {STORE_NOW}"
        )
        with self._reader.connect() as conn:
            ids = conn.execute(due).scalars().all()
        if not ids:
            return 0
        now = time.time()
        with self._writer.begin() as conn:
            for proposal_id in ids:
                self._expire(conn, proposal_id, now)
        return len(ids)

    def verified(self, proposal_id: str) -> Proposal:
        with self._writer.begin() as conn:
            conn.execute(
                text("UPDATE proposals SET verified = 1 WHERE id = :id"), {"id": proposal_id}
            )
        return self.get(proposal_id)

    def release(self, proposal: Proposal) -> bool:
        """APPROVED -> PENDING for one a dead process took before verifying it (if nobody
        took it over meanwhile)."""
        with self._writer.begin() as conn:
            back = conn.execute(
                text(
                    "UPDATE proposals SET status = 'PENDING', claim = NULL, resolved_at = "
                    "NULL, resolved_by = NULL WHERE id = :id AND claim = :owner"
                ),
                {"id": proposal.id, "owner": proposal.owner},
            )
            if back.rowcount:
                self._log(conn, "recovered", "system:recovery", proposal, {"to": "PENDING"})
        return bool(back.rowcount)

    def take_over(self, proposal: Proposal, owner: str) -> bool:
        """Make ``owner`` the owner of one a dead process was executing (if nobody else did)."""
        with self._writer.begin() as conn:
            took = conn.execute(
                text("UPDATE proposals SET claim = :me WHERE id = :id AND claim = :owner"),
                {"me": owner, "id": proposal.id, "owner": proposal.owner},
            )
            if took.rowcount:
                self._log(conn, "recovered", "system:recovery", proposal, {"to": "EXECUTED"})
        return bool(took.rowcount)

    def unknown(self, proposal: Proposal, error: dict[str, Any]) -> None:
        """Note that an execution ran past its deadline and may still land: an audit row, if
        it is still running (its own ending, recorded meanwhile, says more)."""
        with self._writer.begin() as conn:
            running = conn.execute(
                text("SELECT 1 FROM proposals WHERE id = :id AND status = 'APPROVED'"),
                {"id": proposal.id},
            ).first()
            if running is not None:
                actor = proposal.resolved_by or "system"
                self._log(conn, "outcome_unknown", actor, proposal, {"error": error})

    def finish(
        self,
        proposal: Proposal,
        status: str,
        *,
        result: Any = None,
        error: dict[str, Any] | None = None,
        inverse: dict[str, Any] | None = None,
    ) -> Proposal:
        """APPROVED -> EXECUTED or FAILED, with what it answered, why it failed, its undo (and
        its audit row); nothing at all when it is no longer APPROVED (ended already)."""
        values = {
            "id": proposal.id,
            "status": status,
            "result": None if result is None else canonical(result),
            "error": None if error is None else canonical(error),
            "inverse": canonical(inverse),
        }
        with self._writer.begin() as conn:
            ended = conn.execute(
                text(
                    "UPDATE proposals SET status = :status, result = :result, error = :error, "
                    "inverse = :inverse, claim = NULL WHERE id = :id AND status = 'APPROVED'"
                ),
                values,
            )
            if ended.rowcount:
                event = "executed" if status == "EXECUTED" else "failed"
                payload = {"error": error} if error is not None else {}
                self._log(conn, event, proposal.resolved_by or "system", proposal, payload)
        return self.get(proposal.id)

    # -- helpers -------------------------------------------------------------------------------

    def _expire(self, conn: Connection, proposal_id: str, now: float) -> None:
        """PENDING -> EXPIRED, with its audit row, if it is past its time on the store's clock."""
        if conn.execute(_EXPIRE, {"now": now, "id": proposal_id}).rowcount:
            self._audit.append(
                conn,
                event="expired",
                actor="system:ttl",
                proposal_id=proposal_id,
                tool=None,
                payload={},
            )

    def _get(self, conn: Connection, proposal_id: str) -> Proposal:
        found = conn.execute(text(f"{_SELECT} WHERE id = :id"), {"id": proposal_id}).first()
        if found is None:
            raise ProposalNotFound.of(proposal_id)
        return Proposal.from_row(found)

    def _pending(self, conn: Connection, proposal_id: str) -> Proposal:
        found = self._get(conn, proposal_id)
        if found.status == "EXPIRED":
            raise ProposalExpired.at(proposal_id, format_epoch(found.expires_at))
        if found.status != "PENDING":
            raise Conflict(
                f"Proposal {proposal_id} is already {found.status}.", status=found.status
            )
        return found

    def _log(
        self, conn: Connection, event: str, actor: str, proposal: Proposal, payload: dict[str, Any]
    ) -> None:
        self._audit.append(
            conn,
            event=event,
            actor=actor,
            proposal_id=proposal.id,
            tool=proposal.tool,
            payload=payload,
        )
