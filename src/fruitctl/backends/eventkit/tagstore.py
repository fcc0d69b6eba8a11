"""Tags, the flag and subtasks of Apple Reminders, which EventKit does not expose: read from the
Reminders app's own Core Data store (``Data-*.sqlite``, one per account), strictly read-only.

The store is Apple's private schema, so every read first checks with ``PRAGMA table_info`` that
the columns it needs are there; any doubt (no folder, no Full Disk Access, an unknown schema)
makes the answer "no extras" and ``status()`` says why - tags are never invented, and a missing
permission is never hidden behind an empty result without a word.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Collection, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

# Table -> the columns read from it (EVENTKIT.md, "Tags and flags").
NEEDED: dict[str, tuple[str, ...]] = {
    "ZREMCDREMINDER": (
        "Z_PK",
        "ZCKIDENTIFIER",
        "ZFLAGGED",
        "ZMARKEDFORDELETION",
        "ZPARENTREMINDER",
    ),
    "ZREMCDOBJECT": ("ZREMINDER3", "ZHASHTAGLABEL", "ZMARKEDFORDELETION"),
    "ZREMCDHASHTAGLABEL": ("Z_PK", "ZNAME"),
}
BUSY_MS = 200  # the app may be writing (WAL): wait a little, never long
CHUNK = 500  # ids per query, well under SQLite's variable limit
FULL_DISK_ACCESS = (
    "System Settings > Privacy & Security > Full Disk Access, for the app that runs fruitctl"
)

_REMINDERS = """
SELECT r.Z_PK, r.ZCKIDENTIFIER, r.ZFLAGGED, p.ZCKIDENTIFIER
FROM ZREMCDREMINDER r LEFT JOIN ZREMCDREMINDER p ON p.Z_PK = r.ZPARENTREMINDER
WHERE r.ZMARKEDFORDELETION = 0 AND r.ZCKIDENTIFIER IN ({marks})
"""
_TAGS = """
SELECT o.ZREMINDER3, l.ZNAME
FROM ZREMCDOBJECT o JOIN ZREMCDHASHTAGLABEL l ON l.Z_PK = o.ZHASHTAGLABEL
WHERE o.ZMARKEDFORDELETION = 0 AND o.ZREMINDER3 IN ({marks})
ORDER BY o.ZREMINDER3, l.ZNAME
"""


@dataclass(frozen=True)
class Extras:
    """What the Reminders app knows of a reminder beyond EventKit."""

    tags: tuple[str, ...] = ()
    flagged: bool = False
    parent_id: str | None = None
    """The ``calendarItemIdentifier`` of the reminder this one is a subtask of."""


class Unreadable(Exception):
    """The store cannot be read; the message says why and what to do."""


class TagStore:
    """The Reminders app's databases in ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def status(self) -> dict[str, Any]:
        """Whether tags and flags can be read, and if not, why (for ``fruitctl doctor`` and
        ``system.info``)."""
        try:
            files = self._databases()
            for path in files:
                with _opened(path) as db:
                    _check_schema(db, path)
        except Unreadable as exc:
            return {"source": str(self.directory), "readable": False, "reason": str(exc)}
        return {"source": str(self.directory), "readable": True, "reason": None}

    def extras(self, ids: Collection[str]) -> dict[str, Extras]:
        """The extras of the reminders with these ``calendarItemIdentifier``s that the store
        knows; ``{}`` when it cannot be read (``status()`` says why)."""
        if not ids:
            return {}
        found: dict[str, Extras] = {}
        try:
            for path in self._databases():
                with _opened(path) as db:
                    _check_schema(db, path)
                    found |= _read(db, list(ids))
        except Unreadable:
            return {}
        return found

    def _databases(self) -> list[Path]:
        folder = self.directory
        if folder.is_symlink():
            raise Unreadable(f"{folder} is a symbolic link; fruitctl reads only the real folder")
        try:
            names = sorted(os.listdir(folder))
        except FileNotFoundError as exc:
            raise Unreadable(f"the Reminders app's store is not at {folder}") from exc
        except PermissionError as exc:
            raise Unreadable(
                f"no permission to read {folder}: allow it in {FULL_DISK_ACCESS}"
            ) from exc
        except OSError as exc:
            raise Unreadable(f"cannot read {folder}: {exc.strerror}") from exc
        files = [folder / n for n in names if n.startswith("Data-") and n.endswith(".sqlite")]
        if not files:
            raise Unreadable(f"no Reminders database (Data-*.sqlite) in {folder}")
        return files


@contextmanager
def _opened(path: Path) -> Iterator[sqlite3.Connection]:
    """``path`` opened read-only (never created, never written), after refusing a symlink."""
    if path.is_symlink():
        raise Unreadable(f"{path} is a symbolic link; fruitctl reads only the real file")
    real = os.path.realpath(path)
    uri = f"file:{quote(real)}?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True, timeout=BUSY_MS / 1000, check_same_thread=False)
    except sqlite3.Error as exc:
        raise Unreadable(_why(path, exc)) from exc
    with closing(db):
        try:
            db.execute("PRAGMA query_only = ON")
            yield db
        except sqlite3.Error as exc:
            raise Unreadable(_why(path, exc)) from exc


def _why(path: Path, exc: sqlite3.Error) -> str:
    text = str(exc)
    if "unable to open" in text or "authorization" in text or not os.access(path, os.R_OK):
        return f"no permission to read {path}: allow it in {FULL_DISK_ACCESS}"
    return f"cannot read {path}: {text}"


def _check_schema(db: sqlite3.Connection, path: Path) -> None:
    for table, columns in NEEDED.items():
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        missing = [c for c in columns if c not in have]
        if missing:
            what = f"table {table}" if not have else f"{table}.{', '.join(missing)}"
            raise Unreadable(
                f"{path.name} has a schema fruitctl does not know (no {what}), so tags and flags "
                "are not read"
            )


def _read(db: sqlite3.Connection, ids: list[str]) -> dict[str, Extras]:
    rows: list[tuple[int, str, int, str | None]] = []
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        rows += db.execute(_REMINDERS.format(marks=",".join("?" * len(chunk))), chunk).fetchall()
    tags: dict[int, list[str]] = {}
    keys = [pk for pk, *_ in rows]
    for start in range(0, len(keys), CHUNK):
        keys_chunk = keys[start : start + CHUNK]
        query = _TAGS.format(marks=",".join("?" * len(keys_chunk)))
        for pk, name in db.execute(query, keys_chunk):
            if name and name not in tags.setdefault(pk, []):
                tags[pk].append(name)
    return {
        item_id: Extras(tuple(tags.get(pk, ())), bool(flagged), parent)
        for pk, item_id, flagged, parent in rows
    }
