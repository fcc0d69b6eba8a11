"""A new state database is made from the head schema this process already made once: it must be
the very file Alembic's migrations make. The local store's migrations write its first list and
calendar, with ids of their own each time: it is migrated every time."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from fruitctl.store import engine as store_engine
from fruitctl.store.engine import HEADS, Kind, open_database, upgrade


def _same_schema(one: Path, other: Path) -> None:
    def schema(path: Path) -> list[str]:
        return [
            s
            for s in _dump(path)
            if not s.startswith('INSERT INTO "lists"')
            and not s.startswith('INSERT INTO "calendars"')
        ]

    assert schema(one) == schema(other)


def _dump(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return list(conn.iterdump())


@pytest.mark.parametrize("kind", sorted(HEADS))
def test_a_new_file_is_what_the_migrations_make(tmp_path: Path, kind: Kind) -> None:
    for name in ("first.db", "second.db"):  # the second, at least, from the head schema
        open_database(tmp_path / name, kind).dispose()
    assert kind in store_engine._HEAD_SCHEMA
    if kind == "local":  # made the same way, but each its own first list and calendar
        assert _dump(tmp_path / "first.db") != _dump(tmp_path / "second.db")
        _same_schema(tmp_path / "first.db", tmp_path / "second.db")
        return
    migrated = tmp_path / "migrated.db"
    engine = create_engine(f"sqlite:///{migrated}")
    upgrade(engine, kind)
    engine.dispose()
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
