"""Reading a real Things-schema database: views as the app shows them, packed dates, trashed
projects and headings, checklists and tags, read-only and WAL-aware, and clear refusals."""

from __future__ import annotations

import os
from datetime import date, timedelta
from pathlib import Path

import pytest
from things_fixture import TODAY, ThingsFixture, build, packed

from fruitctl.backends.things import ThingsDatabase, default_database
from fruitctl.domain.errors import BackendUnavailable, NotFound
from fruitctl.domain.things import VIEWS, pack_date, unpack_date


@pytest.fixture
def fixture(tmp_path: Path) -> ThingsFixture:
    return build(tmp_path / "container")


@pytest.fixture
def things(fixture: ThingsFixture) -> ThingsDatabase:
    return ThingsDatabase(fixture.path)


def ids(things: ThingsDatabase, view: str | None) -> list[str]:
    return [t.id for t in things.todos(TODAY, view)]  # type: ignore[arg-type]


def test_packed_dates_as_things_writes_them() -> None:
    assert unpack_date(132464128) == date(2021, 3, 28)
    assert unpack_date(133739008) == date(2040, 11, 4)
    assert pack_date(date(2021, 3, 28)) == 132464128 == packed(date(2021, 3, 28))
    assert unpack_date(None) is None


def test_each_view_as_the_app_shows_it(things: ThingsDatabase) -> None:
    assert ids(things, "inbox") == ["todo-inbox"]
    # Scheduled for today, a Someday item scheduled in the past, an overdue deadline.
    assert sorted(ids(things, "today")) == ["todo-overdue", "todo-today", "todo-yellow"]
    assert ids(things, "upcoming") == ["todo-upcoming"]
    assert sorted(ids(things, "anytime")) == ["todo-anytime", "todo-heading"]
    assert ids(things, "someday") == ["todo-someday"]
    assert ids(things, "logbook") == ["todo-done", "todo-canceled"]  # newest first


def test_an_overdue_deadline_the_person_dismissed_stays_out_of_today(
    fixture: ThingsFixture, things: ThingsDatabase
) -> None:
    with fixture.connect() as db:
        db.execute(
            "UPDATE TMTask SET deadlineSuppressionDate = ? WHERE uuid = 'todo-overdue'",
            (packed(TODAY),),
        )
    assert "todo-overdue" not in ids(things, "today")
    assert "todo-overdue" in ids(things, "anytime")
    with fixture.connect() as db:  # a Things without the column: deadlines are not suppressed
        db.execute("ALTER TABLE TMTask DROP COLUMN deadlineSuppressionDate")
    assert "todo-overdue" in ids(things, "today")


@pytest.mark.parametrize("when", [-3, 0, 3], ids=["3 days ago", "today", "in 3 days"])
def test_each_views_sql_gives_what_the_apps_rule_gives(things: ThingsDatabase, when: int) -> None:
    # The view's SQL only narrows what is read; the rule the app follows decides. Whatever the
    # day, the two must agree with reading everything and sorting it by that rule.
    day = TODAY + timedelta(days=when)
    everything = things.todos(day)
    for view in VIEWS:
        assert sorted(t.id for t in things.todos(day, view)) == sorted(
            t.id for t in everything if t.view == view
        ), view


def test_trashed_todos_and_those_of_trashed_projects_never_appear(things: ThingsDatabase) -> None:
    everything = ids(things, None)
    assert len(everything) == 10
    assert not {"todo-trashed", "todo-in-old", "todo-under-old"} & set(everything)
    assert things.todo("todo-in-old", TODAY).view is None  # found by id: in the Trash
    assert [p.title for p in things.projects()] == ["Move house"]


def test_a_todo_with_every_field(things: ThingsDatabase) -> None:
    anytime = things.todo("todo-anytime", TODAY).to_wire()
    assert anytime["project"] == {"id": "proj-move", "title": "Move house"}
    assert anytime["area"] == {"id": "area-home", "title": "Home"}  # the project's area
    assert anytime["checklist"] == [
        {"title": "Small ones", "done": True},
        {"title": "Big ones", "done": False},
    ]
    assert anytime["tags"] == ["Errand"]
    assert anytime["status"] == "open" and anytime["completionDate"] is None
    under = things.todo("todo-heading", TODAY)
    assert under.heading is not None and under.heading.title == "Packing"
    assert under.project is not None and under.project.title == "Move house"  # via its heading
    upcoming = things.todo("todo-upcoming", TODAY)
    in_three_days = (TODAY + timedelta(days=3)).isoformat()
    assert (upcoming.startDate, upcoming.deadline) == (in_three_days, "2040-11-04")
    today = things.todo("todo-today", TODAY)
    assert today.tags == ("Errand", "Calls") and today.area is not None
    done = things.todo("todo-done", TODAY)
    assert done.status == "completed" and done.completionDate is not None
    yesterday = (TODAY - timedelta(days=1)).isoformat()
    assert done.completionDate[:10] in (yesterday, TODAY.isoformat())  # 15:00 UTC, local zone
    assert done.creationDate is not None
    assert things.todo("todo-canceled", TODAY).status == "canceled"
    assert things.todo("todo-inbox", TODAY).notes == "from the hall"


def test_projects_areas_and_tags(things: ThingsDatabase) -> None:
    (move,) = things.projects()
    assert (move.openCount, move.area.title if move.area else None) == (2, "Home")
    assert [(a.title, a.tags) for a in things.areas()] == [("Home", ("Home",)), ("Work", ())]
    assert [(t.title, t.parent) for t in things.tags()] == [
        ("Errand", None),
        ("Home", None),
        ("Calls", "Errand"),
    ]


def test_an_unknown_id_is_not_found(things: ThingsDatabase) -> None:
    with pytest.raises(NotFound, match="No to-do found with ID: 'nope'"):
        things.todo("nope", TODAY)
    with pytest.raises(NotFound):
        things.todo("proj-move", TODAY)  # a project is not a to-do


def test_reads_write_nothing(fixture: ThingsFixture, things: ThingsDatabase) -> None:
    # The database and its write-ahead log keep every byte. SQLite's WAL mode lets a reader
    # make an empty -wal (and the -shm index, shared memory every reader marks its place in)
    # where none is open, as things.py's reads and the app's own do.
    folder = fixture.path.parent
    wal = fixture.path.with_name("main.sqlite-wal")
    main = fixture.path.read_bytes()
    log = wal.read_bytes() if wal.exists() else b""
    things.todos(TODAY)
    things.todo("todo-today", TODAY)
    things.projects(), things.areas(), things.tags()
    assert fixture.path.read_bytes() == main
    assert (wal.read_bytes() if wal.exists() else b"") == log
    assert {f.name for f in folder.iterdir()} <= {
        "main.sqlite",
        "main.sqlite-wal",
        "main.sqlite-shm",
    }


def test_the_apps_latest_commit_is_seen_through_its_wal(
    fixture: ThingsFixture, things: ThingsDatabase
) -> None:
    with fixture.connect() as writer:  # Things itself, holding the database open in WAL mode
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        writer.execute("UPDATE TMTask SET title = 'Call the bank today' WHERE uuid = 'todo-today'")
        writer.commit()
        assert things.todo("todo-today", TODAY).title == "Call the bank today"


def test_a_database_fruitctl_cannot_read_says_why(tmp_path: Path, fixture: ThingsFixture) -> None:
    missing = ThingsDatabase(tmp_path / "nowhere.sqlite")
    assert missing.status()["readable"] is False
    with pytest.raises(BackendUnavailable, match="there is no such file"):
        missing.todos(TODAY)

    link = tmp_path / "link.sqlite"
    link.symlink_to(fixture.path)
    with pytest.raises(BackendUnavailable, match="symbolic link"):
        ThingsDatabase(link).todos(TODAY)

    with fixture.connect() as db:
        db.execute("ALTER TABLE TMTask DROP COLUMN todayIndex")
    with pytest.raises(BackendUnavailable, match=r"no TMTask\.todayIndex"):
        ThingsDatabase(fixture.path).todos(TODAY)


def test_a_database_older_than_packed_dates_is_refused(fixture: ThingsFixture) -> None:
    with fixture.connect() as db:
        db.execute("UPDATE TMTask SET startDate = 1614902400.0 WHERE uuid = 'todo-today'")
    with pytest.raises(BackendUnavailable, match=r"older than 3\.15"):
        ThingsDatabase(fixture.path).todos(TODAY)


def test_the_database_is_found_in_both_layouts(tmp_path: Path) -> None:
    new = build(tmp_path / "new")
    assert default_database(tmp_path / "new") == new.path
    old = tmp_path / "old" / "Things Database.thingsdatabase"
    old.mkdir(parents=True)
    (old / "main.sqlite").write_bytes(b"")
    assert default_database(tmp_path / "old") == old / "main.sqlite"
    assert default_database(tmp_path / "none") is None
    assert os.path.exists(new.path)
