"""A write is never reported failed while it may still land, and never lands after it was:
past its deadline it is ``outcome_unknown`` (never retryable) and its proposal settles to how
it really ended; one that had not reached its store stops there. Claims check expiry in the
statement that claims; audit times never go backwards. All on the real stores of a home."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.domain.dates import format_datetime
from fruitctl.domain.errors import ProposalExpired
from fruitctl.domain.writes import entering
from fruitctl.policy import governance
from fruitctl.tools.context import ToolContext
from fruitctl.tools.inputs import Input
from fruitctl.tools.model import Change, tool

PERSON = Actor("human", "tester")
AGENT = Actor("agent", "test-agent")
SETTLE_S = 60  # generous: how long a test waits for a worker to record how a write ended


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def test_a_write_past_its_deadline_is_unknown_then_settles_executed(
    app: bootstrap.App, home: Path
) -> None:
    app.call("get_lists", {})  # local.db exists, with its default list
    with _write_lock(home / "local.db") as holder:  # the write passes its gate, then waits
        result = asyncio.run(
            app.gateway.ainvoke(
                "create_reminders", {"reminders": [{"title": "late"}]}, PERSON, limit=0.3
            )
        )
        assert (result.success, result.error_code) == (False, "outcome_unknown")
        assert result.metadata["retryable"] is False
        proposal_id = result.error_details["proposalId"]
        assert proposal_id in (result.error or "")
        assert app.approvals.get(proposal_id)["status"] == "APPROVED"  # not FAILED
        holder.execute("ROLLBACK")  # the other process's write ends; ours goes on
    settled = _settled(app, proposal_id)
    assert settled["status"] == "EXECUTED"
    assert [r["title"] for r in app.call("query_reminders", {})] == ["late"]  # exactly once
    assert _events(app, proposal_id) == ["direct_write", "outcome_unknown", "executed"]


def test_a_write_cancelled_before_it_reaches_its_store_changes_nothing(
    app: bootstrap.App, tmp_path: Path
) -> None:
    marker = tmp_path / "marker.db"
    sqlite3.connect(marker).execute("CREATE TABLE done (x)").connection.commit()
    slow = _slow_write(marker)
    app.gateway.registry = type(app.gateway.registry)([*app.gateway.registry, slow])
    _use_registry(app, app.gateway.registry)
    result = asyncio.run(app.gateway.ainvoke("slow_write", {"seconds": 1}, PERSON, limit=0.2))
    assert result.error_code == "outcome_unknown"
    settled = _settled(app, result.error_details["proposalId"])
    assert settled["status"] == "FAILED"
    assert settled["error"]["code"] == "timeout"
    assert "nothing was changed" in settled["error"]["message"]
    assert sqlite3.connect(marker).execute("SELECT count(*) FROM done").fetchone() == (0,)


def test_a_claim_past_its_time_expires_in_the_same_statement(app: bootstrap.App) -> None:
    filed = app.gateway.invoke("create_reminders", {"reminders": [{"title": "x"}]}, AGENT)
    proposal_id = filed.output["proposalId"]
    # Past its time on the store's clock, while nothing has marked it EXPIRED yet: the claim
    # itself must notice (no earlier expiry sweep to rely on).
    with app.ledger.begin() as conn:
        conn.execute(
            text("UPDATE proposals SET expires_at = :t WHERE id = :id"),
            {"t": time.time() - 1, "id": proposal_id},
        )
    store = app.approvals._store  # the step itself, without the engine's sweep before it
    with pytest.raises(ProposalExpired):
        store.take(proposal_id, PERSON.label, "someone:1:0")
    assert app.approvals.get(proposal_id)["status"] == "EXPIRED"
    assert _events(app, proposal_id) == ["proposal_created", "expired"]
    assert app.call("query_reminders", {}) == []


def test_audit_times_never_go_backwards(app: bootstrap.App) -> None:
    later = format_datetime(datetime.now().astimezone() + timedelta(hours=2))
    app.audit.record(event="mode_changed", actor="human:tester", payload={})
    with app.ledger.begin() as conn:  # as if the clock had been set back since the last row
        conn.execute(text("DROP TRIGGER IF EXISTS audit_log_no_update"))
        conn.execute(text("UPDATE audit_log SET at = :at"), {"at": later})
    app.audit.record(event="mode_changed", actor="human:tester", payload={})
    times = [datetime.fromisoformat(e["at"]) for e in reversed(app.audit.entries())]
    assert times == sorted(times) and times[-1] >= datetime.fromisoformat(later)


# -- helpers -------------------------------------------------------------------------------------


class Seconds(Input):
    seconds: float = 0


def _slow_write(marker: Path) -> Any:
    @tool(
        category="pim_write",
        risk="low",
        title="Slow write",
        timeout=30,
        change=Change(
            lambda a, c: "a slow write", _nothing, _nothing, lambda a, b, r: None, lambda a, b: []
        ),
    )
    def slow_write(args: Seconds, ctx: ToolContext) -> dict[str, Any]:
        """Prepares for a while, then writes one row (a write with CPU work before its lock)."""
        time.sleep(args.seconds)
        entering()
        with sqlite3.connect(marker) as db:
            db.execute("INSERT INTO done VALUES (1)")
        return {"done": True}

    return slow_write


def _nothing(*_: Any) -> dict[str, Any]:
    return {}


def _use_registry(app: bootstrap.App, registry: Any) -> None:
    """The app's gateway, policy and approvals on ``registry`` (the catalog and a test tool)."""
    definitions = [t.definition for t in registry]
    app.gateway.policy.governance = governance.load(app.config.paths, definitions)
    app.approvals._registry = registry


def _settled(app: bootstrap.App, proposal_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + SETTLE_S
    while time.monotonic() < deadline:
        found = app.approvals.get(proposal_id)
        if found["status"] != "APPROVED":
            return found
        time.sleep(0.05)
    raise AssertionError(f"proposal {proposal_id} never settled")


def _events(app: bootstrap.App, proposal_id: str) -> list[str]:
    return [e["event"] for e in reversed(app.audit.entries(proposal_id=proposal_id))]


class _write_lock:
    """A second, real connection holding BEGIN IMMEDIATE on the file (another process's write)."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path, isolation_level=None)

    def __enter__(self) -> sqlite3.Connection:
        self._db.execute("BEGIN IMMEDIATE")
        return self._db

    def __exit__(self, *_: object) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")
        self._db.close()
