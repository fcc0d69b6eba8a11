"""A new database is made from the head schema this process already made once: it must be the
very file Alembic's migrations make, but for the local store's first list and calendar, which get
an id and a creation time of their own each time, as the migrations give them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from fruitctl.store import engine as store_engine
from fruitctl.store.engine import HEADS, Kind, open_database, upgrade


def _without_own_values(path: Path) -> list[str]:
    """The dump with the first list's and calendar's id and creation time left out."""
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE lists SET id = 'ID', created = 'WHEN'")
        conn.execute("UPDATE calendars SET id = 'ID', created = 'WHEN'")
        return list(conn.iterdump())


def _firsts(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as conn:
        return [
            *conn.execute("SELECT id, name FROM lists"),
            *conn.execute("SELECT id, name FROM calendars"),
        ]


def _dump(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return list(conn.iterdump())


@pytest.mark.parametrize("kind", sorted(HEADS))
def test_a_new_file_is_what_the_migrations_make(tmp_path: Path, kind: Kind) -> None:
    for name in ("first.db", "second.db"):  # the second, at least, from the head schema
        open_database(tmp_path / name, kind).dispose()
    assert store_engine._HEAD_SCHEMA.get(kind) is not None
    migrated = tmp_path / "migrated.db"
    engine = create_engine(f"sqlite:///{migrated}")
    upgrade(engine, kind)
    engine.dispose()
    if kind == "local":  # the same rows, each file with a first list and calendar of its own
        made, first = _firsts(tmp_path / "second.db"), _firsts(migrated)
        assert [name for _, name in made] == ["Reminders", "Calendar"] == [n for _, n in first]
        assert {i for i, _ in made}.isdisjoint(i for i, _ in first)
        assert _without_own_values(tmp_path / "second.db") == _without_own_values(migrated)
        return
    assert _dump(tmp_path / "second.db") == _dump(migrated)
    assert "alembic_version" in "".join(_dump(migrated)) and HEADS[kind] in "".join(_dump(migrated))


def test_a_file_with_tables_of_its_own_is_not_made_over(tmp_path: Path) -> None:
    open_database(tmp_path / "made.db", "state").dispose()  # the head schema is known
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE approvals (mine TEXT)")
    raw = sqlite3.connect(other, isolation_level=None)
    try:
        assert store_engine._run_on_empty(raw, store_engine._HEAD_SCHEMA["state"]) is False
    finally:
        raw.close()
    assert _dump(other) == [
        "BEGIN TRANSACTION;",
        "CREATE TABLE approvals (mine TEXT);",
        "COMMIT;",
    ]
