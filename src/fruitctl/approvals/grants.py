"""Standing grants (``state.db``, migration ``0004_grants``): a person approving a proposal may
also allow the same tool, for the same agent, on the same lists or calendars (or anywhere the
tool reaches, when it names none), for a while.

A grant only ever turns the policy's "a person must approve" into "allowed" (``policy.engine``):
the mode, the allowlists and the rate limits still judge every call first, so a grant never
widens an allowlist and never lets a tool run that the mode forbids; in LOCKDOWN it counts for
nothing, and entering LOCKDOWN revokes every live grant. A grant ends at its time on the store's
clock (like a proposal), or when a person revokes it; every step is an audit row.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, text

from fruitctl.approvals.audit import AuditLog, canonical
from fruitctl.approvals.store import STORE_NOW
from fruitctl.domain.dates import format_epoch
from fruitctl.domain.errors import Conflict, NotFound

COLUMNS = (
    "id, tool, agent, scope, created_at, expires_at, created_by, proposal_id, revoked_at, "
    "revoked_by"
)
_SELECT = f"SELECT {COLUMNS} FROM grants"
_LIVE = f"revoked_at IS NULL AND expires_at > {STORE_NOW}"
_END = text("UPDATE grants SET revoked_at = :now, revoked_by = :by WHERE id = :id AND " + _LIVE)


@dataclass(frozen=True)
class Grant:
    id: str
    tool: str
    agent: str
    """The agent's identity (``agent:uid:1000``): the display name it gives itself never counts."""
    scope: list[str] | None
    """The containers it covers (``list:Inbox``, ``calendar:Work``); None: the whole tool."""
    created_at: float
    expires_at: float
    created_by: str
    proposal_id: str | None = None
    revoked_at: float | None = None
    revoked_by: str | None = None

    @classmethod
    def from_row(cls, row: Any) -> Grant:
        values = dict(row._mapping)
        values["scope"] = None if values["scope"] is None else json.loads(values["scope"])
        return cls(**values)

    def covers(self, reached: set[str] | None) -> bool:
        """Whether a call reaching ``reached`` (None: nothing it can name) is inside it."""
        if self.scope is None:
            return True
        if not reached:
            return False
        return {name.casefold() for name in reached} <= {s.casefold() for s in self.scope}

    def status(self, now: float) -> str:
        if self.revoked_at is not None:
            return "revoked"
        return "live" if self.expires_at > now else "expired"

    def view(self, now: float | None = None) -> dict[str, Any]:
        return {
            "id": self.id,
            "tool": self.tool,
            "agent": self.agent,
            "scope": self.scope,
            "status": self.status(time.time() if now is None else now),
            "createdAt": format_epoch(self.created_at),
            "expiresAt": format_epoch(self.expires_at),
            "createdBy": self.created_by,
            "proposalId": self.proposal_id,
            "revokedAt": None if self.revoked_at is None else format_epoch(self.revoked_at),
            "revokedBy": self.revoked_by,
        }


class GrantStore:
    def __init__(self, engine: Engine, audit: AuditLog) -> None:
        self._reader = engine
        self._writer = engine.execution_options(fruitctl_write=True)
        self._audit = audit

    def add(
        self,
        *,
        tool: str,
        agent: str,
        scope: list[str] | None,
        seconds: float,
        by: str,
        proposal_id: str | None,
    ) -> Grant:
        now = time.time()
        grant = Grant(
            id="g" + secrets.token_hex(8),
            tool=tool,
            agent=agent,
            scope=scope,
            created_at=now,
            expires_at=now + seconds,
            created_by=by,
            proposal_id=proposal_id,
        )
        row = {**grant.__dict__, "scope": None if scope is None else canonical(scope)}
        insert = f"INSERT INTO grants ({COLUMNS}) VALUES ({', '.join(':' + n for n in row)})"
        with self._writer.begin() as conn:
            conn.execute(text(insert), row)
            self._log(conn, "grant_created", by, grant, {"agent": agent, "scope": scope})
        return self.get(grant.id)

    def get(self, grant_id: str) -> Grant:
        with self._reader.connect() as conn:
            found = conn.execute(text(f"{_SELECT} WHERE id = :id"), {"id": grant_id}).first()
        if found is None:
            raise NotFound.grant(grant_id)
        return Grant.from_row(found)

    def listed(self, every: bool, limit: int) -> list[Grant]:
        """Newest first: the live ones, or (``every``) those that ended too."""
        where = "" if every else f"WHERE {_LIVE}"
        query = f"{_SELECT} {where} ORDER BY created_at DESC LIMIT :limit"
        with self._reader.connect() as conn:
            return [Grant.from_row(r) for r in conn.execute(text(query), {"limit": limit})]

    def matching(self, tool: str, agent: str, reaches: Callable[[], set[str] | None]) -> str | None:
        """The id of a live grant covering ``agent`` calling ``tool`` where ``reaches()`` says
        the call reaches (asked only when the agent holds a grant on the tool), else None."""
        query = f"{_SELECT} WHERE tool = :tool AND agent = :agent AND {_LIVE}"
        with self._reader.connect() as conn:
            rows = conn.execute(text(query), {"tool": tool, "agent": agent})
            live = [Grant.from_row(row) for row in rows]
        if not live:
            return None
        reached = reaches()
        return next((grant.id for grant in live if grant.covers(reached)), None)

    def revoke(self, grant_id: str, by: str) -> Grant:
        """End a live grant now; one that has ended already is a conflict saying how."""
        with self._writer.begin() as conn:
            if not self._end(conn, grant_id, by, None):
                ended = self.get(grant_id)  # raises not found for an unknown id
                raise Conflict(
                    f"Grant {grant_id} has already ended ({ended.status(time.time())}).",
                    status=ended.status(time.time()),
                )
        return self.get(grant_id)

    def revoke_all(self, by: str, reason: str) -> list[str]:
        """End every live grant now (entering LOCKDOWN), each with its audit row; their ids."""
        with self._writer.begin() as conn:
            ids = conn.execute(text(f"SELECT id FROM grants WHERE {_LIVE}")).scalars().all()
            return [grant_id for grant_id in ids if self._end(conn, grant_id, by, reason)]

    def _end(self, conn: Connection, grant_id: str, by: str, reason: str | None) -> bool:
        ended = conn.execute(_END, {"now": time.time(), "by": by, "id": grant_id})
        if not ended.rowcount:
            return False
        found = conn.execute(text(f"{_SELECT} WHERE id = :id"), {"id": grant_id}).first()
        self._log(conn, "grant_revoked", by, Grant.from_row(found), {"reason": reason})
        return True

    def _log(
        self, conn: Connection, event: str, actor: str, grant: Grant, payload: dict[str, Any]
    ) -> None:
        self._audit.append(
            conn,
            event=event,
            actor=actor,
            proposal_id=grant.proposal_id,
            tool=grant.tool,
            payload={"grant": grant.id, **payload},
        )
