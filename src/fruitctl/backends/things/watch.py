"""What counts as a write landing, judged on what the reader's watch answers
(``ThingsDatabase.created_since`` and ``modified_at``: a poll costs a few rows, not the whole
library): a row written after the launch, holding what was asked."""

from __future__ import annotations

from fruitctl.domain.things import ToDo
from fruitctl.ports import NewToDo


def moved(before: float | None, now: float | None) -> bool:
    """Whether Things wrote the row after ``before`` was read (a first stamp counts)."""
    return now is not None and (before is None or now > before)


def same(held: str | None, asked: str | None) -> bool:
    """Whether Things holds the text asked for: it trims surrounding blanks of what it keeps."""
    return (held or "").strip() == (asked or "").strip()


def holds(todo: ToDo, new: NewToDo) -> bool:
    """Whether ``todo`` is ``new`` as asked: its title, notes, checklist, reminder (a ``when``
    with ``@HH:MM``) and list. Things trims
    a title and notes of surrounding blanks; anything else it changed (notes or a checklist cut
    at its limits) means the write did not land as asked."""
    if not same(todo.title, new.title) or not same(todo.notes, new.notes):
        return False
    if [item.title for item in todo.checklist] != [item.strip() for item in new.checklist]:
        return False
    reminder = (new.when or "").partition("@")[2]
    if reminder and todo.reminderTime != reminder:
        return False
    if new.list_id is None:
        return True
    homes = {ref.id for ref in (todo.project, todo.area) if ref is not None}
    return new.list_id in homes
