"""What the writer watches for after a launch, read so that a poll costs a few rows, not the
whole library: the to-dos created since the launch (by ``creationDate``: only those rows are read
in full, with what they refer to) and one row's ``userModificationDate``.

Both use the reader's own connection (read-only, schema checked, closed after each read), and
both answer what Things holds now: the writer decides what counts as its write landing.
"""

from __future__ import annotations

from datetime import date

from fruitctl.backends.things.reader import _VISIBLE, ThingsDatabase, _task_columns
from fruitctl.backends.things.rows import TYPE_TODO, Rows
from fruitctl.domain.things import ToDo
from fruitctl.ports import NewToDo


def created_since(database: ThingsDatabase, seconds: float, today: date) -> list[ToDo]:
    """The to-dos outside the Trash whose ``creationDate`` is ``seconds`` or later, read as the
    reader reads any (its columns, what it keeps out of sight) on one connection."""
    with database._connection() as db:  # the reader's checks and its read-only open
        rows = db.execute(
            f"SELECT {_task_columns(db)} {_VISIBLE} AND t.type = ? AND t.creationDate >= ?",
            (TYPE_TODO, seconds),
        ).fetchall()
        return Rows(db, rows).todos(today)


def modified_at(database: ThingsDatabase, item_id: str) -> float | None:
    """A task's (to-do's or project's) ``userModificationDate``, as Things stores it."""
    with database._connection() as db:
        row = db.execute(
            "SELECT userModificationDate FROM TMTask WHERE uuid = ?", (item_id,)
        ).fetchone()
    return None if row is None or row[0] is None else float(row[0])


def moved(before: float | None, now: float | None) -> bool:
    """Whether Things wrote the row after ``before`` was read (a first stamp counts)."""
    return now is not None and (before is None or now > before)


def same(held: str | None, asked: str | None) -> bool:
    """Whether Things holds the text asked for: it trims surrounding blanks of what it keeps."""
    return (held or "").strip() == (asked or "").strip()


def holds(todo: ToDo, new: NewToDo) -> bool:
    """Whether ``todo`` is ``new`` as asked: its title, notes, checklist and list. Things trims
    a title and notes of surrounding blanks; anything else it changed (notes or a checklist cut
    at its limits) means the write did not land as asked."""
    if not same(todo.title, new.title) or not same(todo.notes, new.notes):
        return False
    if [item.title for item in todo.checklist] != [item.strip() for item in new.checklist]:
        return False
    if new.list_id is None:
        return True
    homes = {ref.id for ref in (todo.project, todo.area) if ref is not None}
    return new.list_id in homes
