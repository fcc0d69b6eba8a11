"""A new database is made from the head schema shipped beside the migrations, or the one this
process already made once: it must be the very file Alembic's migrations make, but for the local
store's first list and calendar, which get an id and a creation time of their own each time, as
the migrations give them. The shipped statements are checked against the migrations here
(``FRUITCTL_UPDATE_SNAPSHOTS=1`` writes them anew after a new migration)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from fruitctl.store import engine as store_engine
from fruitctl.store.engine import (
    HEADS,
    Kind,
    head_schema_file,
    head_statements,
    open_database,
    shipped_head_schema,
    upgrade,
)


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


def _migrated(path: Path, kind: Kind) -> Path:
    engine = create_engine(f"sqlite:///{path}")
    upgrade(engine, kind)
    engine.dispose()
    return path


@pytest.mark.parametrize("kind", sorted(HEADS))
def test_the_shipped_head_schema_is_what_the_migrations_make(kind: Kind, tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'made.db'}")
    made = head_statements(engine, kind)
    engine.dispose()
    if os.environ.get("FRUITCTL_UPDATE_SNAPSHOTS") == "1":
        text = json.dumps(made, indent=1, ensure_ascii=False) + "\n"
        head_schema_file(kind).write_text(text, encoding="utf-8")
    assert shipped_head_schema(kind) is not None, (
        f"{head_schema_file(kind)} is missing or for another revision: if a migration was "
        "added, rerun with FRUITCTL_UPDATE_SNAPSHOTS=1 and commit it"
    )
    shipped_file, migrated = tmp_path / "shipped.db", _migrated(tmp_path / "migrated.db", kind)
    raw = sqlite3.connect(shipped_file, isolation_level=None)
    try:
        assert store_engine._run_on_empty(raw, shipped_head_schema(kind) or [])
    finally:
        raw.close()
    if kind == "local":  # its first list and calendar renewed: not the shipped ones
        shipped_ids = {i for i, _ in _firsts(shipped_file)}
        assert shipped_ids.isdisjoint(i for i, _ in _firsts(migrated))
        assert not [i for i in shipped_ids for s in shipped_head_schema(kind) or [] if i in s]
        assert _without_own_values(shipped_file) == _without_own_values(migrated)
    else:
        assert _dump(shipped_file) == _dump(migrated)


@pytest.mark.parametrize("kind", sorted(HEADS))
def test_a_process_makes_its_first_file_without_migrating(
    kind: Kind, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_engine, "_HEAD_SCHEMA", {})

    def no_alembic(*_: object) -> None:
        raise AssertionError("migrated although the head schema is shipped")

    monkeypatch.setattr(store_engine, "upgrade", no_alembic)
    open_database(tmp_path / "first.db", kind).dispose()
    with sqlite3.connect(tmp_path / "first.db") as conn:
        (revision,) = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    assert revision == HEADS[kind]


def test_a_shipped_schema_for_another_revision_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    older = tmp_path / "state" / "head_schema.json"
    older.parent.mkdir()
    statements = json.loads(head_schema_file("state").read_text(encoding="utf-8"))
    older.write_text(json.dumps([s.replace(HEADS["state"], "0001_older") for s in statements]))
    monkeypatch.setattr(store_engine, "MIGRATIONS", tmp_path)
    assert shipped_head_schema("state") is None
    older.write_text("not json")
    assert shipped_head_schema("state") is None
