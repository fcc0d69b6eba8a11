"""What fruitctl needs of a Things database before it reads one: a version of Things that
keeps the layout read here (3.15.16 and later), and every table and column it reads, checked
with ``PRAGMA table_info``, so a database it does not know is refused by name, not misread."""

from __future__ import annotations

import plistlib
import sqlite3
from pathlib import Path
from typing import Any

from fruitctl.domain.errors import BackendUnavailable

# Things 3.15.16 moved its database into ThingsData-* with the layout read here (things.py
# asserts the same: "databaseVersion > 21"); an older one lacks columns this reader needs.
OLDEST_VERSION = 22
PACKED_LIMIT = 10_000 << 16

NEEDED: dict[str, tuple[str, ...]] = {
    "TMTask": (
        "uuid",
        "type",
        "status",
        "trashed",
        "title",
        "notes",
        "start",
        "startDate",
        "deadline",
        "stopDate",
        "creationDate",
        "userModificationDate",
        "area",
        "project",
        "heading",
        "index",
        "todayIndex",
        "rt1_recurrenceRule",
        "rt1_repeatingTemplate",
    ),
    "TMArea": ("uuid", "title", "index"),
    "TMTag": ("uuid", "title", "parent", "index"),
    "TMTaskTag": ("tasks", "tags"),
    "TMAreaTag": ("areas", "tags"),
    "TMChecklistItem": ("uuid", "task", "title", "status", "index"),
}


def check_schema(db: sqlite3.Connection, path: Path) -> None:
    version = _check_version(db, path)
    for table, columns in NEEDED.items():
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        missing = [c for c in columns if c not in have]
        if missing:
            what = f"table {table}" if not have else f"{table}.{', '.join(missing)}"
            raise unreadable(path, f"it is not a Things 3 database fruitctl knows (no {what})")
    if version is not None:
        return  # a version the checks above accept: packed dates (each row read says so too)
    # Before Things 3.15 these held Unix times: far beyond any packed date (year 9999). Looked
    # for in every task (a pass over the table) only in a database that gives no version.
    old = db.execute(
        "SELECT 1 FROM TMTask WHERE typeof(startDate) = 'real' OR typeof(deadline) = 'real' "
        "OR startDate >= ? OR deadline >= ? LIMIT 1",
        (PACKED_LIMIT, PACKED_LIMIT),
    ).fetchone()
    if old:
        raise _too_old(path)


def packed_only(rows: list[tuple[Any, ...]], path: Path) -> list[tuple[Any, ...]]:
    """``rows``, refused if any of their dates is not a packed date (one a Things before 3.15
    wrote): a reader that meets one says the database is too old rather than guess."""
    for row in rows:  # a task row (``reader._TASK_COLUMNS``): start, deadline, project's start
        for value in (row[5], row[6], row[19]):
            if value is not None and (value.__class__ is not int or value >= PACKED_LIMIT):
                raise _too_old(path)
    return rows


def _too_old(path: Path) -> BackendUnavailable:
    return unreadable(path, "it was written by a Things older than 3.15; update Things")


def _check_version(db: sqlite3.Connection, path: Path) -> int | None:
    """Things before 3.15.16 kept another layout (``dueDate``, ``actionGroup``): said by its
    own version number, before any column is looked for. The version, when it gives one."""
    if not db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'Meta'"
    ).fetchone():
        return None
    row = db.execute("SELECT value FROM Meta WHERE key = 'databaseVersion'").fetchone()
    version = _number(row[0]) if row else None
    if version is not None and version < OLDEST_VERSION:
        raise unreadable(
            path,
            f"it was written by a Things older than 3.15.16 (database version {version}); "
            "update Things, open it once, and retry",
        )
    return version


def _number(value: Any) -> int | None:
    """The version as Things writes it (an XML property list holding an integer), or a bare
    integer; ``None`` for anything else."""
    text = str(value).strip()
    if text.isdigit():
        return int(text)
    try:
        found = plistlib.loads(text.encode())
    except (plistlib.InvalidFileException, ValueError, TypeError, OverflowError):
        return None
    return found if type(found) is int else None


def unreadable(path: Path, why: str) -> BackendUnavailable:
    return BackendUnavailable(f"Cannot read the Things database {path}: {why}.", database=str(path))
