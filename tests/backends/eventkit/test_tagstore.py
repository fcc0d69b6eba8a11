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

# The tables and columns read, shaped as the app's store has them: Core Data keeps every entity's
# number in Z_PRIMARYKEY, and ZREMCDOBJECT holds many entities (alarms, tags ...), each linking to
# its reminder through its own numbered ZREMINDERn column.
SCHEMA = """
CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER,
  Z_MAX INTEGER);
CREATE TABLE ZREMCDREMINDER (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER,
  ZDACALENDARITEMUNIQUEIDENTIFIER VARCHAR, ZCKIDENTIFIER VARCHAR, ZTITLE VARCHAR,
  ZFLAGGED INTEGER, ZCOMPLETED INTEGER, ZMARKEDFORDELETION INTEGER, ZPARENTREMINDER INTEGER,
  ZLIST INTEGER);
CREATE TABLE ZREMCDOBJECT (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, ZREMINDER INTEGER,
  ZREMINDER1 INTEGER, ZREMINDER2 INTEGER, ZREMINDER3 INTEGER, ZREMINDER4 INTEGER,
  ZHASHTAGLABEL INTEGER, ZMARKEDFORDELETION INTEGER);
CREATE TABLE ZREMCDHASHTAGLABEL (Z_PK INTEGER PRIMARY KEY, ZNAME VARCHAR, ZCANONICALNAME VARCHAR);
INSERT INTO Z_PRIMARYKEY VALUES (15, 'REMCDAlarm', 14, 0), (26, 'REMCDRecurrenceRule', 14, 0),
  (29, 'REMCDURL', 14, 0), (32, 'REMCDHashtag', 14, 0);
"""
ALARM, HASHTAG = 15, 32


def build(folder: Path, name: str = "Data-ABC.sqlite", schema: str = SCHEMA) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    with sqlite3.connect(path) as db:
        db.executescript(schema)
    return path


def remind(db: sqlite3.Connection, rows: list[tuple[object, ...]]) -> None:
    """Reminders as (Z_PK, EventKit id, CloudKit id, title, flagged, deleted, parent Z_PK)."""
    db.executemany(
        "INSERT INTO ZREMCDREMINDER (Z_PK, Z_ENT, ZDACALENDARITEMUNIQUEIDENTIFIER, ZCKIDENTIFIER,"
        " ZTITLE, ZFLAGGED, ZCOMPLETED, ZMARKEDFORDELETION, ZPARENTREMINDER, ZLIST)"
        " VALUES (?, 20, ?, ?, ?, ?, 0, ?, ?, 1)",
        rows,
    )


def link(db: sqlite3.Connection, rows: list[tuple[int, int, int, int]], column: str) -> None:
    """``ZREMCDOBJECT`` rows as (Z_PK, Z_ENT, reminder Z_PK, label Z_PK or 0) through ``column``."""
    db.executemany(
        f"INSERT INTO ZREMCDOBJECT (Z_PK, Z_ENT, {column}, ZHASHTAGLABEL, ZMARKEDFORDELETION)"
        " VALUES (?, ?, ?, NULLIF(?, 0), 0)",
        rows,
    )


def label(db: sqlite3.Connection) -> None:
    db.executemany(
        "INSERT INTO ZREMCDHASHTAGLABEL VALUES (?, ?, ?)",
        [(10, "Errand", "errand"), (11, "home", "home")],
    )


def fill(path: Path) -> None:
    """iCloud reminders: the EventKit id in both key columns (the app's own iCloud rows)."""
    with sqlite3.connect(path) as db:
        remind(
            db,
            [
                (1, "parent-id", "parent-id", "Trip", 1, 0, None),
                (2, "child-id", "child-id", "Pack", 0, 0, 1),
                (3, "gone-id", "gone-id", "Deleted", 1, 1, None),
            ],
        )
        label(db)
        tags = [(100, HASHTAG, 1, 11), (101, HASHTAG, 1, 10), (102, HASHTAG, 2, 10)]
        link(db, [*tags, (103, HASHTAG, 3, 10)], "ZREMINDER3")
        db.execute("UPDATE ZREMCDOBJECT SET ZMARKEDFORDELETION = 1 WHERE Z_PK = 102")
        link(db, [(104, ALARM, 1, 0)], "ZREMINDER")  # an alarm: another entity, another column


def test_tags_flags_and_parents_are_read(tmp_path: Path) -> None:
    fill(build(tmp_path))
    store = TagStore(tmp_path)
    assert store.status() == {
        "source": str(tmp_path),
        "readable": True,
        "reason": None,
        "skipped": [],
    }
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
        remind(db, [(1, "icloud-id", "icloud-id", "x", 1, 0, None)])
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


# -- every account's reminders, whatever the layout (REVIEW-2026-11 R1-R3) -----------------------


def test_on_my_mac_exchange_and_caldav_reminders_get_their_extras(tmp_path: Path) -> None:
    # Only iCloud rows carry a CloudKit id; every account keeps the EventKit id in
    # ZDACALENDARITEMUNIQUEIDENTIFIER. A row with only the CloudKit id still matches by it.
    path = build(tmp_path, "Data-local.sqlite")
    with sqlite3.connect(path) as db:
        remind(
            db,
            [
                (1, "local-parent", None, "Garden", 1, 0, None),
                (2, "local-child", None, "Seeds", 0, 0, 1),
                (3, None, "cloud-only", "Old", 1, 0, None),
            ],
        )
        label(db)
        link(db, [(100, HASHTAG, 1, 11), (101, HASHTAG, 2, 10)], "ZREMINDER3")
    found = TagStore(tmp_path).extras(["local-parent", "local-child", "cloud-only"])
    assert found == {
        "local-parent": Extras(tags=("home",), flagged=True, parent_id=None),
        "local-child": Extras(tags=("Errand",), flagged=False, parent_id="local-parent"),
        "cloud-only": Extras(tags=(), flagged=True, parent_id=None),
    }


def test_the_tag_link_column_is_found_in_the_store_not_assumed(tmp_path: Path) -> None:
    # A model version where alarms link through ZREMINDER3 and tags through ZREMINDER4.
    path = build(tmp_path)
    with sqlite3.connect(path) as db:
        remind(db, [(1, "r-id", "r-id", "Trip", 0, 0, None), (2, "s-id", "s-id", "x", 0, 0, None)])
        label(db)
        link(db, [(100, ALARM, 1, 0), (101, ALARM, 2, 0)], "ZREMINDER3")
        link(db, [(102, HASHTAG, 1, 10), (103, HASHTAG, 2, 11)], "ZREMINDER4")
        db.execute("UPDATE Z_PRIMARYKEY SET Z_ENT = 33 WHERE Z_NAME = 'REMCDHashtag'")
        db.execute("UPDATE ZREMCDOBJECT SET Z_ENT = 33 WHERE Z_ENT = ?", (HASHTAG,))
    store = TagStore(tmp_path)
    assert store.status()["readable"] is True
    assert store.extras(["r-id", "s-id"]) == {
        "r-id": Extras(tags=("Errand",)),
        "s-id": Extras(tags=("home",)),
    }


def test_a_store_without_tags_needs_no_link_column(tmp_path: Path) -> None:
    with sqlite3.connect(build(tmp_path)) as db:
        remind(db, [(1, "r-id", None, "Trip", 1, 0, None)])
    store = TagStore(tmp_path)
    assert store.status()["readable"] is True
    assert store.extras(["r-id"]) == {"r-id": Extras(flagged=True)}


def _two_links(db: sqlite3.Connection) -> None:
    link(db, [(100, HASHTAG, 1, 10)], "ZREMINDER3")
    link(db, [(101, HASHTAG, 1, 11)], "ZREMINDER4")


def _no_link(db: sqlite3.Connection) -> None:
    db.execute(
        "INSERT INTO ZREMCDOBJECT (Z_PK, Z_ENT, ZHASHTAGLABEL, ZMARKEDFORDELETION)"
        " VALUES (100, ?, 10, 0)",
        (HASHTAG,),
    )


def _no_entity(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM Z_PRIMARYKEY WHERE Z_NAME = 'REMCDHashtag'")


def _no_eventkit_ids(db: sqlite3.Connection) -> None:
    db.execute("ALTER TABLE ZREMCDREMINDER DROP COLUMN ZDACALENDARITEMUNIQUEIDENTIFIER")


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (_two_links, "tags link to reminders through several columns: ZREMINDER3, ZREMINDER4"),
        (_no_link, "tags link to reminders through no ZREMINDER column"),
        (_no_entity, "no REMCDHashtag entity in Z_PRIMARYKEY"),
        (_no_eventkit_ids, "no ZREMCDREMINDER.ZDACALENDARITEMUNIQUEIDENTIFIER"),
    ],
    ids=["two link columns", "no link column", "no tag entity", "no EventKit id column"],
)
def test_a_layout_that_does_not_fit_is_unreadable_and_says_why(
    tmp_path: Path, change: object, reason: str
) -> None:
    path = build(tmp_path)
    with sqlite3.connect(path) as db:
        remind(db, [(1, "r-id", "r-id", "Trip", 1, 0, None)])
        label(db)
        change(db)  # type: ignore[operator]
    store = TagStore(tmp_path)
    status = store.status()
    assert status["readable"] is False
    assert status["reason"] == (
        f"Data-ABC.sqlite has a schema fruitctl does not know ({reason}), so its tags and flags"
        " are not read"
    )
    assert store.extras(["r-id"]) == {}  # never a guess: no flag, no tags


def test_one_unreadable_store_is_skipped_and_named_not_all(tmp_path: Path) -> None:
    fill(build(tmp_path, "Data-icloud.sqlite"))
    (tmp_path / "Data-leftover.sqlite").write_text("not a database")
    with sqlite3.connect(build(tmp_path, "Data-local.sqlite")) as db:
        remind(db, [(1, "local-id", None, "x", 1, 0, None)])
        _no_entity(db)  # an odd store (say, an internal one) whose tag entity is unknown
    store = TagStore(tmp_path)
    found = store.extras(["parent-id", "local-id"])
    assert found == {"parent-id": Extras(tags=("Errand", "home"), flagged=True)}
    status = store.status()
    assert status["readable"] is True
    assert [reason.split(" ")[0:2] for reason in status["skipped"]] == [
        ["cannot", "read"],
        ["Data-local.sqlite", "has"],
    ]
    assert "Data-leftover.sqlite" in status["skipped"][0]
    assert status["reason"] == "; ".join(status["skipped"])


def test_what_the_app_wrote_but_did_not_checkpoint_is_read(tmp_path: Path) -> None:
    # The app keeps its store in WAL mode with recent writes only in the -wal file; a read-only
    # open still sees them (an ``immutable`` open would not).
    path = build(tmp_path)
    app = sqlite3.connect(path, isolation_level=None)
    try:
        app.execute("PRAGMA journal_mode = WAL")
        app.execute("PRAGMA wal_autocheckpoint = 0")
        remind(app, [(1, "new-id", None, "Fresh", 1, 0, None)])
        assert (tmp_path / "Data-ABC.sqlite-wal").stat().st_size > 0
        assert TagStore(tmp_path).extras(["new-id"]) == {"new-id": Extras(flagged=True)}
    finally:
        app.close()
