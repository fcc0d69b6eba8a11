"""Rows of Things 3's database as the domain's models: the app's codes, where the app shows a
to-do (its view), and what a set of task rows refers to (tags, checklist items, the titles of
projects, headings and areas), read with a few queries for the whole set."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from fruitctl.backends.things.repeats import rule_in_words
from fruitctl.domain.dates import epoch_writer, format_datetime
from fruitctl.domain.things import (
    ChecklistItem,
    Ref,
    Repeating,
    ThingsView,
    ToDo,
    ToDoStatus,
    pack_date,
    unpack_date,
    unpack_time,
)

TYPE_TODO, TYPE_PROJECT, TYPE_HEADING = 0, 1, 2  # TMTask.type
OPEN, CANCELED, COMPLETED = 0, 2, 3
INBOX, ANYTIME, SOMEDAY = 0, 1, 2
STATUSES: dict[int, ToDoStatus] = {OPEN: "open", CANCELED: "canceled", COMPLETED: "completed"}
FEW = 200  # ids looked up one by one below this; the whole table read above it


class Rows:
    """Task rows and what they refer to, read with a few queries for the whole set."""

    def __init__(self, db: sqlite3.Connection, rows: Sequence[tuple[Any, ...]]) -> None:
        self.rows = rows
        ids = [r[0] for r in rows]
        self.tags = tags_of(db, "TMTaskTag", "tasks", ids)
        self.checklists = checklists(db, ids)
        self.tasks = titles(db, "TMTask", "type IN (1, 2)")
        self.areas = titles(db, "TMArea")
        templates = sorted({r[TEMPLATE] for r in rows if r[TEMPLATE]})
        rules = owned(db, "SELECT uuid, rt1_recurrenceRule FROM TMTask {where}", "uuid", templates)
        self.rules = {uuid: rule_in_words(rule) for uuid, rule in rules}
        self.write_moment = epoch_writer()

    def moment(self, seconds: float | None) -> str | None:
        return None if seconds is None else self.write_moment(seconds)

    def todos(self, today: date) -> list[ToDo]:
        return [self._todo(row, today) for row in self.rows]

    def _todo(self, row: tuple[Any, ...], today: date) -> ToDo:
        uuid, title, notes, status, _, start_date, deadline, stop, created, modified = row[:10]
        area, project, heading, _, _, project_area, _, template = row[10:18]
        return ToDo(
            id=uuid,
            title=title or "",
            notes=notes or None,
            status=STATUSES.get(status, "open"),
            view=view_of(*view_columns(row), today),
            startDate=day(start_date),
            reminderTime=unpack_time(row[REMINDER]),
            deadline=day(deadline),
            tags=tuple(self.tags.get(uuid, ())),
            project=ref(project, self.tasks),
            area=ref(area or project_area, self.areas),
            heading=ref(heading, self.tasks),
            checklist=tuple(self.checklists.get(uuid, ())),
            repeating=Repeating(template=template, rule=self.rules.get(template))
            if template
            else None,
            creationDate=self.moment(created),
            modificationDate=self.moment(modified),
            completionDate=self.moment(stop) if status in (CANCELED, COMPLETED) else None,
        )


# Where a task row (``_TASK_COLUMNS`` in ``reader.py``) keeps what ordering and views read.
STOP, TODAY_INDEX, TEMPLATE, PROJECT_START, PROJECT_DATE, EVENING, REMINDER = (
    7,
    14,
    17,
    18,
    19,
    20,
    21,
)


def view_columns(
    row: tuple[Any, ...],
) -> tuple[int, int, int | None, int | None, int | None, int | None]:
    """``(status, start, startDate, deadline unless suppressed, project's start, project's
    startDate)`` of a task row (the project directly or through the heading)."""
    return (
        row[3],
        row[4],
        row[5],
        None if row[16] else row[6],
        row[PROJECT_START],
        row[PROJECT_DATE],
    )


def view_of(
    status: int,
    start: int,
    start_date: int | None,
    deadline: int | None,
    project_start: int | None,
    project_date: int | None,
    today: date,
) -> ThingsView:
    """Where the app shows an open to-do today (what it would move into Today included)."""
    if status in (CANCELED, COMPLETED):
        return "logbook"
    if start == INBOX:
        return "inbox"
    now = pack_date(today)
    parked = _parked(project_start, project_date, now)
    if parked is not None:
        return parked
    if start_date is not None:
        return "upcoming" if start_date > now else "today"
    if deadline is not None and deadline <= now:
        return "today"
    return "someday" if start == SOMEDAY else "anytime"


def _parked(start: int | None, start_date: int | None, now: int) -> ThingsView | None:
    """Where a project not yet started keeps all its to-dos, whatever their own dates (the app
    shows none of them in Today or Anytime): in Someday, or in Upcoming until its date comes."""
    if start != SOMEDAY:
        return None
    if start_date is None:
        return "someday"
    return "upcoming" if start_date > now else None


def ordered(rows: list[tuple[Any, ...]], view: ThingsView | None) -> list[tuple[Any, ...]]:
    """Task rows, already in the app's own order (``index``), in the order the app shows
    ``view``: Today by its own order (``todayIndex``) then start date, This Evening's below the
    rest; Upcoming by the date it starts (its project's, for a parked project's to-do); the
    Logbook newest first. Sorts are stable, so ``index`` decides ties."""
    if view == "today":
        return sorted(rows, key=lambda r: (r[EVENING] or 0, r[TODAY_INDEX] or 0, r[5] or 0))
    if view == "upcoming":
        return sorted(rows, key=_starts)
    if view == "logbook":
        return sorted(rows, key=lambda r: r[STOP] or 0, reverse=True)
    return rows


def _starts(row: tuple[Any, ...]) -> int:
    """The packed day an upcoming to-do starts: its own, or its parked project's when later."""
    own = row[5] or 0
    return max(own, row[PROJECT_DATE] or 0) if row[PROJECT_START] == SOMEDAY else own


def titles(db: sqlite3.Connection, table: str, where: str = "1") -> dict[str, str]:
    return {u: t or "" for u, t in db.execute(f"SELECT uuid, title FROM {table} WHERE {where}")}


def tags_of(
    db: sqlite3.Connection, link: str, owner: str, ids: Sequence[str]
) -> dict[str, list[str]]:
    query = (
        f"SELECT l.{owner}, g.title FROM {link} l JOIN TMTag g ON g.uuid = l.tags "
        f'{{where}} ORDER BY g."index", g.title'
    )
    found: dict[str, list[str]] = {}
    for item, title in owned(db, query, f"l.{owner}", ids):
        found.setdefault(item, []).append(title or "")
    return found


def checklists(db: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[ChecklistItem]]:
    query = 'SELECT task, title, status FROM TMChecklistItem {where} ORDER BY task, "index"'
    found: dict[str, list[ChecklistItem]] = {}
    for task, title, status in owned(db, query, "task", ids):
        done = status in (CANCELED, COMPLETED)
        found.setdefault(task, []).append(ChecklistItem(title=title or "", done=done))
    return found


def owned(
    db: sqlite3.Connection, query: str, column: str, ids: Sequence[str]
) -> list[tuple[Any, ...]]:
    """The rows of ``query`` whose ``column`` is one of ``ids``: looked up by id for a few,
    one pass over the table for many (cheaper than a long IN list)."""
    if not ids:
        return []
    if len(ids) <= FEW:
        marks = ",".join("?" * len(ids))
        return db.execute(query.format(where=f"WHERE {column} IN ({marks})"), list(ids)).fetchall()
    wanted = set(ids)
    return [row for row in db.execute(query.format(where="")) if row[0] in wanted]


def ref(uuid: str | None, titles: dict[str, str]) -> Ref | None:
    if uuid is None or uuid not in titles:
        return None
    return Ref(id=uuid, title=titles[uuid])


def day(packed: int | None) -> str | None:
    day = unpack_date(packed)
    return None if day is None else day.isoformat()


def moment(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return format_datetime(datetime.fromtimestamp(seconds).astimezone())
