"""Tags, the flag and subtasks of Apple Reminders, which EventKit does not expose: read from the
Reminders app's own Core Data store (``Data-*.sqlite``, one per account), strictly read-only.

The store is Apple's private schema, so each store's layout is found from the store itself
(``PRAGMA table_info``, Core Data's ``Z_PRIMARYKEY``) before anything is read:

- a reminder's EventKit ``calendarItemIdentifier`` is ``ZDACALENDARITEMUNIQUEIDENTIFIER`` for
  every account; ``ZCKIDENTIFIER`` (the CloudKit id) is set only for iCloud and is the fallback
  for a row without the first (REVIEW-2026-11 R1);
- tags are ``ZREMCDOBJECT`` rows of the ``REMCDHashtag`` entity, whose ``Z_ENT`` number and link
  column (``ZREMINDER3`` on some releases, another ``ZREMINDERn`` on others) are looked up, not
  assumed (R2).

A store whose layout does not fit is skipped and named; the others are still read (R3). Any
doubt makes the answer "no extras" for that store and ``status()`` says why - tags are never
invented, and a missing permission is never hidden behind an empty result without a word.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Collection, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

# Table -> the columns read from it (EVENTKIT.md, "Tags and flags"); ZCKIDENTIFIER is optional.
NEEDED: dict[str, tuple[str, ...]] = {
    "ZREMCDREMINDER": (
        "Z_PK",
        "ZDACALENDARITEMUNIQUEIDENTIFIER",
        "ZFLAGGED",
        "ZMARKEDFORDELETION",
        "ZPARENTREMINDER",
    ),
    "ZREMCDOBJECT": ("Z_ENT", "ZHASHTAGLABEL", "ZMARKEDFORDELETION"),
    "ZREMCDHASHTAGLABEL": ("Z_PK", "ZNAME"),
    "Z_PRIMARYKEY": ("Z_ENT", "Z_NAME"),
}
T = TypeVar("T")
HASHTAG_ENTITY = "REMCDHashtag"  # Core Data's entity name for a tag on a reminder
# Core Data names each entity's to-one ``reminder`` column ZREMINDER, ZREMINDER1, ... by model
# version; the tag rows' one is whichever of these they fill.
LINK_COLUMN = re.compile(r"ZREMINDER\d*")
BUSY_MS = 200  # the app may be writing (WAL): wait a little, never long
CHUNK = 500  # ids per query, well under SQLite's variable limit
FULL_DISK_ACCESS = (
    "System Settings > Privacy & Security > Full Disk Access, for the app that runs fruitctl"
)

_REMINDERS = """
SELECT r.Z_PK, {key_r}, r.ZFLAGGED, {key_p}
FROM ZREMCDREMINDER r LEFT JOIN ZREMCDREMINDER p ON p.Z_PK = r.ZPARENTREMINDER
WHERE r.ZMARKEDFORDELETION = 0 AND {key_r} IN ({marks})
"""
_TAGS = """
SELECT o.{link}, l.ZNAME
FROM ZREMCDOBJECT o JOIN ZREMCDHASHTAGLABEL l ON l.Z_PK = o.ZHASHTAGLABEL
WHERE o.Z_ENT = ? AND o.ZMARKEDFORDELETION = 0 AND o.{link} IN ({marks})
ORDER BY o.{link}, l.ZNAME
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


@dataclass(frozen=True)
class Layout:
    """How one store links what is read, as found in that store."""

    cloud_ids: bool
    """Whether ``ZCKIDENTIFIER`` exists (the fallback id of iCloud rows)."""
    hashtag: int
    """The ``Z_ENT`` of tag rows in ``ZREMCDOBJECT``."""
    link: str | None
    """The tag rows' column holding their reminder's ``Z_PK``; None when the store has no tags."""

    def key(self, alias: str) -> str:
        """SQL for the EventKit id of the reminder row ``alias``."""
        found = f"{alias}.ZDACALENDARITEMUNIQUEIDENTIFIER"
        return f"COALESCE({found}, {alias}.ZCKIDENTIFIER)" if self.cloud_ids else found


class TagStore:
    """The Reminders app's databases in ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def status(self) -> dict[str, Any]:
        """Whether tags and flags can be read, and if not, why (for ``fruitctl doctor`` and
        ``system.info``); a store that cannot be read while others can is named in ``skipped``
        (its account's reminders carry no tags)."""
        try:
            files = self._databases()
        except Unreadable as exc:
            return _status(self.directory, False, [str(exc)])
        skipped: list[str] = []
        for path in files:
            try:
                with _opened(path) as db:
                    layout_of(db, path)
            except Unreadable as exc:
                skipped.append(str(exc))
        return _status(self.directory, len(skipped) < len(files), skipped)

    def extras(self, ids: Collection[str]) -> dict[str, Extras]:
        """The extras of the reminders with these ``calendarItemIdentifier``s that the readable
        stores know; ``{}`` when none can be read (``status()`` says why)."""
        if not ids:
            return {}
        try:
            files = self._databases()
        except Unreadable:
            return {}
        found: dict[str, Extras] = {}
        for path in files:
            try:
                with _opened(path) as db:
                    found |= _read(db, layout_of(db, path), list(ids))
            except Unreadable:
                continue  # one account's odd store costs that account's tags, not everyone's
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


def _status(folder: Path, readable: bool, skipped: list[str]) -> dict[str, Any]:
    reason = "; ".join(skipped) or None
    return {"source": str(folder), "readable": readable, "reason": reason, "skipped": skipped}


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


def _unknown(path: Path, what: str) -> Unreadable:
    return Unreadable(
        f"{path.name} has a schema fruitctl does not know ({what}), so its tags and flags are "
        "not read"
    )


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def layout_of(db: sqlite3.Connection, path: Path) -> Layout:
    """The store's layout, or ``Unreadable`` naming what does not fit."""
    for table, columns in NEEDED.items():
        have = _columns(db, table)
        missing = [c for c in columns if c not in have]
        if missing:
            raise _unknown(
                path, f"no table {table}" if not have else f"no {table}.{', '.join(missing)}"
            )
    row = db.execute(
        "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = ?", (HASHTAG_ENTITY,)
    ).fetchone()
    if row is None:
        raise _unknown(path, f"no {HASHTAG_ENTITY} entity in Z_PRIMARYKEY")
    cloud_ids = "ZCKIDENTIFIER" in _columns(db, "ZREMCDREMINDER")
    return Layout(cloud_ids, int(row[0]), _link(db, path, int(row[0])))


def _link(db: sqlite3.Connection, path: Path, hashtag: int) -> str | None:
    """The one ``ZREMINDERn`` column the tag rows fill; None when there are no tag rows."""
    candidates = sorted(c for c in _columns(db, "ZREMCDOBJECT") if LINK_COLUMN.fullmatch(c))
    used = [
        c
        for c in candidates  # names from the schema matching LINK_COLUMN: safe in SQL text
        if db.execute(
            f"SELECT 1 FROM ZREMCDOBJECT WHERE Z_ENT = ? AND {c} IS NOT NULL LIMIT 1", (hashtag,)
        ).fetchone()
    ]
    if len(used) > 1:
        raise _unknown(path, f"tags link to reminders through several columns: {', '.join(used)}")
    if used:
        return used[0]
    tagged = db.execute("SELECT 1 FROM ZREMCDOBJECT WHERE Z_ENT = ? LIMIT 1", (hashtag,))
    if tagged.fetchone():
        raise _unknown(path, "tags link to reminders through no ZREMINDER column")
    return None


def _read(db: sqlite3.Connection, layout: Layout, ids: list[str]) -> dict[str, Extras]:
    query = _REMINDERS.format(key_r=layout.key("r"), key_p=layout.key("p"), marks="{marks}")
    rows: list[tuple[int, str, int, str | None]] = []
    for chunk in _chunks(ids):
        rows += db.execute(query.format(marks=",".join("?" * len(chunk))), chunk).fetchall()
    tags = _tags(db, layout, [pk for pk, *_ in rows])
    return {
        item_id: Extras(tuple(tags.get(pk, ())), bool(flagged), parent)
        for pk, item_id, flagged, parent in rows
    }


def _tags(db: sqlite3.Connection, layout: Layout, keys: list[int]) -> dict[int, list[str]]:
    tags: dict[int, list[str]] = {}
    if layout.link is None:
        return tags
    for chunk in _chunks(keys):
        query = _TAGS.format(link=layout.link, marks=",".join("?" * len(chunk)))
        for pk, name in db.execute(query, [layout.hashtag, *chunk]):
            if name and name not in tags.setdefault(pk, []):
                tags[pk].append(name)
    return tags


def _chunks(items: list[T]) -> Iterator[list[T]]:
    for start in range(0, len(items), CHUNK):
        yield items[start : start + CHUNK]
