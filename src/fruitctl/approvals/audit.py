"""The audit log (seed 003, DESIGN "Audit"): an append-only, hash-chained record of every change.

Why a chain: the table's triggers refuse UPDATE and DELETE, but anyone holding the file can drop
them. Each row's hash covers the row and the previous row's hash, so an edit, a removal or a
reordering anywhere shows up in ``verify``. A removal at the end leaves no broken link, so the
newest ``{"seq", "hash"}`` is also kept as the chain head in ``config`` (``audit.head``), written
in the same transaction as each row.

The hash is ``sha256(prev_hash + "\\n" + canonical JSON of [seq, at, actor, event, proposal_id,
tool, payload])`` in hex; the first row's ``prev_hash`` is 64 zeros. It is not keyed: it detects
tampering with some rows, not someone who rewrites every later row and the head as well.

Times never go backwards: a row's ``at`` is the later of now and the previous row's ``at``, so a
clock set back (or two processes whose clocks differ) cannot make the log read out of order.

Payloads are kept in full: the log files redact, the audit is the record a person reads to learn
exactly what changed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, text

from fruitctl.domain.dates import format_datetime, now
from fruitctl.domain.errors import InvalidParams

# fruitctl.store.engine.WRITE_OPTION, named here rather than imported: tools, policy and the
# gateway import approvals, and must not reach the store through it (import-linter contracts).
WRITE_OPTION = "fruitctl_write"
GENESIS = "0" * 64
HEAD_KEY = "audit.head"
COLUMNS = "seq, at, actor, event, proposal_id, tool, payload, prev_hash, hash"

_INSERT = text(
    f"INSERT INTO audit_log ({COLUMNS}) VALUES "
    "(:seq, :at, :actor, :event, :proposal_id, :tool, :payload, :prev_hash, :hash)"
)
_LAST = text("SELECT seq, hash, at FROM audit_log ORDER BY seq DESC LIMIT 1")
_READ_HEAD = text("SELECT value FROM config WHERE key = :key")
_WRITE_HEAD = text(
    "INSERT INTO config (key, value, updated, updated_by) VALUES (:key, :value, :at, :actor) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated = excluded.updated, "
    "updated_by = excluded.updated_by"
)
_ALL = text(f"SELECT {COLUMNS} FROM audit_log ORDER BY seq")


def canonical(value: Any) -> str:
    """The one JSON text of ``value``: sorted keys, no spaces, ASCII only (so any string, even a
    lone surrogate, stores and hashes the same way everywhere), and no NaN (not JSON)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


@dataclass(frozen=True)
class _Row:
    seq: int
    at: str
    actor: str
    event: str
    proposal_id: str | None
    tool: str | None
    payload: str  # canonical JSON, as stored
    prev_hash: str
    hash: str

    def expected_hash(self) -> str:
        """The hash this row's content and ``prev_hash`` call for ("" if the payload is not JSON,
        which can only mean it was edited)."""
        try:
            payload = json.loads(self.payload)
        except ValueError:
            return ""
        body = canonical(
            [self.seq, self.at, self.actor, self.event, self.proposal_id, self.tool, payload]
        )
        return hashlib.sha256(f"{self.prev_hash}\n{body}".encode()).hexdigest()

    def entry(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "at": self.at,
            "actor": self.actor,
            "event": self.event,
            "proposalId": self.proposal_id,
            "tool": self.tool,
            "payload": json.loads(self.payload),
            "hash": self.hash,
        }


class AuditLog:
    """Appends to and reads the ``audit_log`` table of state.db."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._writer = engine.execution_options(**{WRITE_OPTION: True})

    def append(
        self,
        conn: Connection,
        *,
        event: str,
        actor: str,
        proposal_id: str | None = None,
        tool: str | None = None,
        payload: dict[str, Any],
    ) -> dict[str, Any]:
        """Add one row inside the caller's open write transaction, so the row commits or rolls
        back with the change it records. That transaction is IMMEDIATE: no other writer can
        take the next seq between reading the chain's end and inserting."""
        _require_write_transaction(conn)
        seq, prev_hash, prev_at = _chain_end(conn)
        at = format_datetime(max(now(), prev_at) if prev_at is not None else now())
        row = _Row(seq, at, actor, event, proposal_id, tool, canonical(payload), prev_hash, "")
        row = replace(row, hash=row.expected_hash())
        conn.execute(_INSERT, asdict(row))
        head = canonical({"seq": row.seq, "hash": row.hash})
        conn.execute(_WRITE_HEAD, {"key": HEAD_KEY, "value": head, "at": at, "actor": actor})
        return row.entry()

    def record(
        self,
        *,
        event: str,
        actor: str,
        proposal_id: str | None = None,
        tool: str | None = None,
        payload: dict[str, Any],
    ) -> dict[str, Any]:
        """``append`` in a transaction of its own, for changes made outside one (direct writes,
        mode changes)."""
        with self._writer.begin() as conn:
            return self.append(
                conn, event=event, actor=actor, proposal_id=proposal_id, tool=tool, payload=payload
            )

    def entries(
        self, *, since: float | None = None, limit: int = 200, proposal_id: str | None = None
    ) -> list[dict[str, Any]]:
        """The newest ``limit`` rows, newest first; ``since`` is epoch seconds."""
        if limit < 1:
            raise InvalidParams(f"limit must be at least 1, not {limit}.")
        where, params = _filters(since, proposal_id)
        query = text(f"SELECT {COLUMNS} FROM audit_log{where} ORDER BY seq DESC LIMIT :limit")
        with self._engine.connect() as conn:
            rows = conn.execute(query, {**params, "limit": limit}).all()
        return [_Row(*row).entry() for row in rows]

    def verify(self) -> dict[str, Any]:
        """Walk the chain oldest first, recomputing every hash, and check its end against the
        head; one read transaction, so rows and head are the same snapshot."""
        chain = _Chain()
        with self._engine.connect() as conn:
            head = conn.execute(_READ_HEAD, {"key": HEAD_KEY}).scalar()
            for row in conn.execute(_ALL):
                chain.check(_Row(*row))
        chain.check_head(head)
        return {"ok": not chain.problems, "checked": chain.checked, "problems": chain.problems}


def _require_write_transaction(conn: Connection) -> None:
    # A deferred transaction would read the chain's end under a shared lock and could lose the
    # race to upgrade it; fail loudly at the first call instead of under load.
    if not conn.in_transaction() or not conn.get_execution_options().get(WRITE_OPTION):
        raise RuntimeError(
            "AuditLog.append needs the caller's open write transaction "
            f"(an engine with execution_options({WRITE_OPTION}=True))"
        )


def _chain_end(conn: Connection) -> tuple[int, str, datetime | None]:
    """The next seq, the hash it follows and the time of the last row. The head wins over the
    table's last row: after a removal at the end the next row still links to the removed one,
    so ``verify`` keeps reporting the removal instead of a new row quietly taking its place."""
    last = conn.execute(_LAST).one_or_none()
    head = _parse_head(conn.execute(_READ_HEAD, {"key": HEAD_KEY}).scalar())
    last_seq, last_hash = (last[0], last[1]) if last else (0, GENESIS)
    last_at = _time_of(last[2]) if last else None
    if head is None:
        return last_seq + 1, last_hash, last_at
    return max(last_seq, head[0]) + 1, head[1], last_at


def _time_of(at: str) -> datetime | None:
    try:
        return datetime.fromisoformat(at)
    except ValueError:  # an edited row: ``verify`` reports it; time goes on from now
        return None


def _parse_head(value: str | None) -> tuple[int, str] | None:
    if value is None:
        return None
    try:
        head = json.loads(value)
        return int(head["seq"]), str(head["hash"])
    except (ValueError, TypeError, KeyError):
        return None


def _filters(since: float | None, proposal_id: str | None) -> tuple[str, dict[str, Any]]:
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if since is not None:
        # `at` carries its own offset; strftime('%s') turns it into epoch seconds, so rows
        # either side of a DST change compare correctly (their text would not).
        clauses.append("CAST(strftime('%s', at) AS INTEGER) >= :since")
        params["since"] = since
    if proposal_id is not None:
        clauses.append("proposal_id = :proposal_id")
        params["proposal_id"] = proposal_id
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


@dataclass
class _Chain:
    """What ``verify`` has seen so far: the rows checked, the last one, the problems found."""

    checked: int = 0
    last: _Row | None = None
    problems: list[dict[str, Any]] = field(default_factory=list)

    def check(self, row: _Row) -> None:
        self.checked += 1
        expected_seq = (self.last.seq if self.last else 0) + 1
        if row.seq > expected_seq:
            self._problem(row.seq, f"seq gap: {_missing(expected_seq, row.seq - 1)}")
        elif row.prev_hash != (self.last.hash if self.last else GENESIS):
            after = f"row {self.last.seq}" if self.last else "the start of the chain"
            self._problem(
                row.seq, f"row {row.seq} does not follow {after} (a row was removed or reordered)"
            )
        if row.hash != row.expected_hash():
            self._problem(row.seq, f"row {row.seq} was edited (hash mismatch)")
        self.last = row

    def check_head(self, value: str | None) -> None:
        last = (self.last.seq, self.last.hash) if self.last else None
        head = _parse_head(value)
        if head == last:
            return
        seq = last[0] if last else None
        if head is None:
            why = "it is missing" if value is None else "it is unreadable"
            self._problem(seq, f"the log has rows but no recorded chain head ({why})")
        elif last is None:
            self._problem(None, f"the log is empty but the chain head records row {head[0]}")
        else:
            self._problem(
                seq,
                "the last row's hash does not match the recorded chain head "
                f"(last row {last[0]}, head row {head[0]})",
            )

    def _problem(self, seq: int | None, message: str) -> None:
        self.problems.append({"seq": seq, "message": message})


def _missing(first: int, last: int) -> str:
    return f"row {first} is missing" if first == last else f"rows {first}..{last} are missing"
