"""A Things 3 database for tests, laid out as ``macos/THINGS.md`` describes (every table and column
fruitctl reads, packed dates, WAL mode), holding a small life: an inbox, today, upcoming,
anytime and someday to-dos, a project with a heading, a trashed project, checklists, tags on
to-dos and areas, and a logbook."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE TMTask (uuid TEXT PRIMARY KEY, type INTEGER, status INTEGER, trashed INTEGER,
  title TEXT, notes TEXT, start INTEGER, startDate INTEGER, deadline INTEGER, stopDate REAL,
  creationDate REAL, userModificationDate REAL, area TEXT, project TEXT, heading TEXT,
  "index" INTEGER, todayIndex INTEGER, rt1_recurrenceRule BLOB, rt1_repeatingTemplate TEXT,
  checklistItemsCount INTEGER, openChecklistItemsCount INTEGER, deadlineSuppressionDate INTEGER,
  reminderTime INTEGER);
CREATE TABLE TMArea (uuid TEXT PRIMARY KEY, title TEXT, visible INTEGER, "index" INTEGER);
CREATE TABLE TMTag (uuid TEXT PRIMARY KEY, title TEXT, shortcut TEXT, usedDate REAL,
  parent TEXT, "index" INTEGER);
CREATE TABLE TMTaskTag (tasks TEXT, tags TEXT);
CREATE TABLE TMAreaTag (areas TEXT, tags TEXT);
CREATE TABLE TMChecklistItem (uuid TEXT PRIMARY KEY, task TEXT, title TEXT, status INTEGER,
  stopDate REAL, "index" INTEGER, creationDate REAL, userModificationDate REAL);
CREATE TABLE TMSettings (uuid TEXT PRIMARY KEY, uriSchemeAuthenticationToken TEXT);
CREATE TABLE Meta (key TEXT PRIMARY KEY, value TEXT);
"""
TODAY = date.today()  # the service asks the clock; the fixture is built around it
AUTH_TOKEN = "secret-things-token"


def packed(day: date) -> int:
    """Written here from the documented layout, not with the code under test."""
    return day.year * 65536 + day.month * 4096 + day.day * 128


def reminder(hour: int, minute: int) -> int:
    """A reminder time as Things keeps it (things.py: hours in bits 26-30, minutes in 20-25)."""
    return hour * 2**26 + minute * 2**20


def stamp(day: date, hour: int = 9) -> float:
    return datetime(day.year, day.month, day.day, hour, tzinfo=UTC).timestamp()


@dataclass
class ThingsFixture:
    path: Path

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A connection that commits and closes at the end of its ``with``: closing is when
        SQLite folds its write-ahead log into the file, and a test that sets files' times must
        not see that happen later, whenever the connection is collected."""
        db = sqlite3.connect(self.path)
        try:
            with db:
                yield db
        finally:
            db.close()

    def task(self, uuid: str, title: str, **columns: Any) -> None:
        row: dict[str, Any] = {
            "uuid": uuid,
            "type": 0,
            "status": 0,
            "trashed": 0,
            "title": title,
            "notes": "",
            "start": 1,
            "creationDate": stamp(TODAY - timedelta(days=10)),
            "userModificationDate": stamp(TODAY - timedelta(days=1)),
            "index": 0,
            "todayIndex": 0,
        }
        row.update(columns)
        names = ", ".join(f'"{k}"' for k in row)
        marks = ", ".join("?" for _ in row)
        # Closed, not only committed: a connection left open in the test's process loses its
        # locks when the reader closes its own (POSIX), and another process's writes to the WAL
        # then corrupt the file (seen with the recorder adding long to-dos).
        with self.connect() as db:
            db.execute(f"INSERT INTO TMTask ({names}) VALUES ({marks})", list(row.values()))


def build(folder: Path) -> ThingsFixture:
    """The database at ``folder/ThingsData-TEST/Things Database.thingsdatabase/main.sqlite``."""
    home = folder / "ThingsData-TEST" / "Things Database.thingsdatabase"
    home.mkdir(parents=True)
    path = home / "main.sqlite"
    with closing(sqlite3.connect(path)) as db, db:  # closed: see ``ThingsFixture.task``
        db.execute("PRAGMA journal_mode = WAL")
        db.executescript(SCHEMA)
        db.execute("INSERT INTO Meta VALUES ('databaseVersion', '24')")
        db.execute("INSERT INTO TMSettings VALUES ('s', ?)", (AUTH_TOKEN,))
        db.executemany(
            "INSERT INTO TMArea VALUES (?, ?, 1, ?)",
            [("area-home", "Home", 0), ("area-work", "Work", 1)],
        )
        db.executemany(
            "INSERT INTO TMTag VALUES (?, ?, NULL, NULL, ?, ?)",
            [
                ("tag-errand", "Errand", None, 0),
                ("tag-home", "Home", None, 1),
                ("tag-calls", "Calls", "tag-errand", 2),
            ],
        )
        db.execute("INSERT INTO TMAreaTag VALUES ('area-home', 'tag-home')")
    fixture = ThingsFixture(path)
    day = timedelta(days=1)
    t = fixture.task
    # Projects and a heading.
    t("proj-move", "Move house", type=1, area="area-home", **{"index": 0})
    t("proj-old", "Old plans", type=1, trashed=1, **{"index": 1})
    t("head-pack", "Packing", type=2, project="proj-move")
    t("head-old", "Old heading", type=2, project="proj-old")
    # To-dos, one per place the app shows them.
    t("todo-inbox", "Sort the post", start=0, notes="from the hall")
    t(
        "todo-today",
        "Call the bank",
        startDate=packed(TODAY),
        todayIndex=1,
        area="area-work",
        reminderTime=reminder(18, 5),
    )
    t("todo-yellow", "Water plants", start=2, startDate=packed(TODAY - day), todayIndex=2)
    t("todo-overdue", "File taxes", deadline=packed(TODAY - day))
    t(
        "todo-upcoming",
        "Dentist",
        start=2,
        startDate=packed(TODAY + 3 * day),
        deadline=packed(date(2040, 11, 4)),
    )
    t("todo-anytime", "Buy boxes", project="proj-move", **{"index": 1})
    t("todo-heading", "Pack books", heading="head-pack", **{"index": 2})
    t("head-clean", "Cleaning", type=2, project="proj-move", **{"index": 1})
    t("todo-someday", "Learn Italian", start=2)
    t("todo-done", "Renew passport", status=3, stopDate=stamp(TODAY - day, 15))
    t("todo-canceled", "Book hotel", status=2, stopDate=stamp(TODAY - 2 * day, 15))
    # Never outside the Trash: trashed, in a trashed project, under a trashed project's heading.
    t("todo-trashed", "Old idea", trashed=1)
    t("todo-in-old", "Old project task", project="proj-old")
    t("todo-under-old", "Old heading task", heading="head-old")
    with fixture.connect() as db:
        db.executemany(
            "INSERT INTO TMTaskTag VALUES (?, ?)",
            [
                ("todo-today", "tag-calls"),
                ("todo-today", "tag-errand"),
                ("todo-anytime", "tag-errand"),
            ],
        )
        db.executemany(
            'INSERT INTO TMChecklistItem (uuid, task, title, status, "index") '
            "VALUES (?, ?, ?, ?, ?)",
            [
                ("c2", "todo-anytime", "Big ones", 0, 1),
                ("c1", "todo-anytime", "Small ones", 3, 0),
            ],
        )
    return fixture


# The rule of a repeating to-do as Things keeps it (a property list): every week (fu 256 = a
# week, fa 1 of them, tp 0 = on a fixed schedule), with a weekday offset (of) fruitctl does not
# say.
RULE = b'<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>fa</key>'
RULE += b"<integer>1</integer><key>fu</key><integer>256</integer><key>tp</key><integer>0"
RULE += b"</integer><key>of</key><array><dict><key>wd</key><integer>2</integer></dict></array>"
RULE += b"</dict></plist>"


def add_repeating(fixture: ThingsFixture) -> None:
    """A repeating to-do as Things stores it: the hidden template (the rule set, in Someday,
    its deadline in the year 4001) and the instance it made for today."""
    fixture.task(
        "todo-repeat-template",
        "Water the garden",
        start=2,
        deadline=packed(date(4001, 1, 1)),
        rt1_recurrenceRule=RULE,
        project="proj-move",
    )
    fixture.task(
        "todo-repeat",
        "Water the garden",
        startDate=packed(TODAY),
        todayIndex=3,
        rt1_repeatingTemplate="todo-repeat-template",
    )


def add_parked_projects(fixture: ThingsFixture) -> None:
    """Projects not yet started, whose to-dos the app shows only in Someday or Upcoming: one in
    Someday (a to-do of its own, one scheduled today, one under its heading) and one scheduled
    in five days (a to-do with an overdue deadline)."""
    day = timedelta(days=1)
    t = fixture.task
    t("proj-someday", "Learn to sail", type=1, start=2, **{"index": 2})
    t("head-someday", "Theory", type=2, project="proj-someday")
    t("todo-parked", "Buy a book on knots", project="proj-someday", **{"index": 3})
    t("todo-parked-dated", "Call the club", project="proj-someday", startDate=packed(TODAY))
    t("todo-parked-heading", "Read on winds", heading="head-someday", **{"index": 4})
    t("proj-later", "Garden", type=1, start=2, startDate=packed(TODAY + 5 * day))
    t("todo-later", "Order seeds", project="proj-later", deadline=packed(TODAY - day))
