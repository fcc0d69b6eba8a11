"""The record of calls is the gateway's bookkeeping: a state store that cannot take it (another
process holding its write lock) never fails the call that made it, and nothing recorded is lost
once the store is free again. A real second connection holds the real file's lock."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from fruitctl import bootstrap, telemetry
from fruitctl.domain.actors import Actor
from fruitctl.store import open_database

AGENT = Actor("agent", "test-agent")


def _calls(home: Path) -> int:
    with sqlite3.connect(home / "state.db") as conn:
        return int(conn.execute("SELECT count(*) FROM tool_calls").fetchone()[0])


def test_a_read_succeeds_while_its_record_waits_for_a_busy_store(home: Path) -> None:
    app = bootstrap.build()
    try:
        assert app.gateway.invoke("get_lists", {}, AGENT).success  # the store exists
        _settle(lambda: _calls(home) == 1)
        holder = sqlite3.connect(home / "state.db", isolation_level=None, timeout=0)
        holder.execute("BEGIN IMMEDIATE")
        try:
            assert app.gateway.invoke("get_lists", {}, AGENT).success
            time.sleep(3 * telemetry.FLUSH_EVERY_S)  # a flush or more meets the lock
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        _settle(lambda: _calls(home) == 2)  # kept, then written: not dropped
    finally:
        app.close()
    assert _calls(home) == 2


def _settle(done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 60  # generous: only a lost record never settles
    while not done():
        assert time.monotonic() < deadline, "the call record never reached the store"
        time.sleep(0.05)


@pytest.mark.slow
def test_records_held_for_a_store_that_cannot_take_them_are_bounded(home: Path) -> None:
    bootstrap.build().close()  # a migrated state.db
    engine = open_database(home / "state.db", "state")
    recorder = telemetry.CallRecorder(engine)
    holder = sqlite3.connect(home / "state.db", isolation_level=None, timeout=0)
    holder.execute("BEGIN IMMEDIATE")
    try:
        record = telemetry.CallRecord(0.0, "t", "s", "get_lists", "agent:a", "agent", "ok", None, 1)
        for _ in range(telemetry.HELD_AT_MOST + 5):
            recorder._pending.append(record)
        assert recorder.flush() is False
        assert len(recorder._pending) == telemetry.HELD_AT_MOST
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        recorder.close()
        engine.dispose()
