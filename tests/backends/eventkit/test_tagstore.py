"""Tags, flags and subtasks from a real SQLite file laid out as the Reminders app's Core Data
store (the tables and columns ``EVENTKIT.md`` lists), opened read-only; and every way it may not
be readable, each said, none hidden behind an empty result."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from fruitctl.backends.eventkit import tagstore
from fruitctl.backends.eventkit.tagstore import Extras, TagStore

SCHEMA = """
CREATE TABLE ZREMCDREMINDER (Z_PK INTEGER PRIMARY KEY, ZCKIDENTIFIER TEXT, ZTITLE TEXT,
  ZFLAGGED INTEGER, ZCOMPLETED INTEGER, ZMARKEDFORDELETION INTEGER, ZPARENTREMINDER INTEGER,
  ZLIST INTEGER);
CREATE TABLE ZREMCDOBJECT (Z_PK INTEGER PRIMARY KEY, ZREMINDER3 INTEGER, ZHASHTAGLABEL INTEGER,
  ZMARKEDFORDELETION INTEGER);
CREATE TABLE ZREMCDHASHTAGLABEL (Z_PK INTEGER PRIMARY KEY, ZNAME TEXT, ZCANONICALNAME TEXT);
"""


def build(folder: Path, name: str = "Data-ABC.sqlite", schema: str = SCHEMA) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    with sqlite3.connect(path) as db:
        db.executescript(schema)
    return path


def fill(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO ZREMCDREMINDER VALUES (?, ?, ?, ?, 0, ?, ?, 1)",
            [
                (1, "parent-id", "Trip", 1, 0, None),
                (2, "child-id", "Pack", 0, 0, 1),
                (3, "gone-id", "Deleted", 1, 1, None),
            ],
        )
        db.executemany(
            "INSERT INTO ZREMCDHASHTAGLABEL VALUES (?, ?, ?)",
            [(10, "Errand", "errand"), (11, "home", "home")],
        )
        db.executemany(
            "INSERT INTO ZREMCDOBJECT VALUES (?, ?, ?, ?)",
            [(100, 1, 11, 0), (101, 1, 10, 0), (102, 2, 10, 1), (103, 3, 10, 0)],
        )


def test_tags_flags_and_parents_are_read(tmp_path: Path) -> None:
    fill(build(tmp_path))
    store = TagStore(tmp_path)
    assert store.status() == {"source": str(tmp_path), "readable": True, "reason": None}
    found = store.extras(["parent-id", "child-id", "gone-id", "unknown-id"])
    assert found == {
        "parent-id": Extras(tags=("Errand", "home"), flagged=True, parent_id=None),
        "child-id": Extras(tags=(), flagged=False, parent_id="parent-id"),  # its tag is deleted
    }


def test_the_store_is_never_written(tmp_path: Path) -> None:
    path = build(tmp_path)
    fill(path)
    before = path.read_bytes()
    stamp = path.stat().st_mtime_ns
    TagStore(tmp_path).extras(["parent-id"])
    assert path.read_bytes() == before and path.stat().st_mtime_ns == stamp
    assert sorted(os.listdir(tmp_path)) == ["Data-ABC.sqlite"]  # no journal or WAL made


def test_every_account_database_is_read(tmp_path: Path) -> None:
    fill(build(tmp_path, "Data-one.sqlite"))
    other = build(tmp_path, "Data-two.sqlite")
    with sqlite3.connect(other) as db:
        db.execute("INSERT INTO ZREMCDREMINDER VALUES (1, 'icloud-id', 'x', 1, 0, 0, NULL, 1)")
    found = TagStore(tmp_path).extras(["parent-id", "icloud-id"])
    assert found["icloud-id"].flagged and found["parent-id"].tags == ("Errand", "home")


def test_a_missing_column_is_an_unknown_schema_and_no_extras(tmp_path: Path) -> None:
    fill(build(tmp_path))
    with sqlite3.connect(tmp_path / "Data-ABC.sqlite") as db:
        db.execute("ALTER TABLE ZREMCDREMINDER DROP COLUMN ZFLAGGED")
    store = TagStore(tmp_path)
    status = store.status()
    assert status["readable"] is False
    assert "schema fruitctl does not know (no ZREMCDREMINDER.ZFLAGGED)" in status["reason"]
    assert store.extras(["parent-id"]) == {}


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: None, "the Reminders app's store is not at"),
        (lambda p: p.mkdir(), "no Reminders database (Data-*.sqlite) in"),
        (lambda p: (p.mkdir(), (p / "Data-X.sqlite").write_text("not a database")), "cannot read"),
    ],
    ids=["no folder", "no database", "not a database"],
)
def test_an_unreadable_store_says_why(tmp_path: Path, make: object, reason: str) -> None:
    folder = tmp_path / "Stores"
    make(folder)  # type: ignore[operator]
    store = TagStore(folder)
    status = store.status()
    assert status["readable"] is False and reason in status["reason"]
    assert store.extras(["x"]) == {}


def test_without_full_disk_access_the_reason_says_what_to_allow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # macOS refuses a process without Full Disk Access with EPERM when it lists the folder;
    # that refusal (not a Linux permission) is the one thing made up here.
    build(tmp_path)

    def refuse(path: object) -> list[str]:
        raise PermissionError(1, "Operation not permitted", str(path))

    monkeypatch.setattr(tagstore.os, "listdir", refuse)
    store = TagStore(tmp_path)
    status = store.status()
    assert status["readable"] is False and "Full Disk Access" in status["reason"]
    assert store.extras(["x"]) == {}


def test_a_symlinked_store_is_refused(tmp_path: Path) -> None:
    fill(build(tmp_path / "real"))
    (tmp_path / "link").symlink_to(tmp_path / "real")
    status = TagStore(tmp_path / "link").status()
    assert status["readable"] is False and "symbolic link" in status["reason"]
