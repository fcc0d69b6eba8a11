"""What the reminder tools answer, as types: the source of their ``returns`` schemas in
``aai.json`` and MCP ``outputSchema`` (a test calls every tool and validates its answer)."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

from fruitctl.domain.reminders import Reminder, ReminderList
from fruitctl.tools.outputs import IdFailure, IndexFailure


class CreatedPartly(TypedDict):
    """Some items could not be made: those that could are in ``created``."""

    created: list[Reminder]
    failed: list[IndexFailure]


class UpdatedPartly(TypedDict):
    updated: list[Reminder]
    failed: list[IdFailure]


class Deleted(TypedDict):
    deleted: list[str]
    failed: list[IdFailure]


class OpenItem(TypedDict):
    id: str
    listName: str
    title: str
    dueAt: str | None
    priority: int
    isFlagged: bool
    tags: list[str]
    notesPreview: str | None


class OpenReminders(TypedDict):
    generatedAt: str
    items: list[OpenItem]
    count: int


OneReminder = Reminder
QueryReminders = list[Reminder] | Any
"""The reminders (an array); with ``query``, whatever the JMESPath expression yields."""
Reminders = list[Reminder]
CreateReminders = list[Reminder] | CreatedPartly
UpdateReminders = list[Reminder] | UpdatedPartly
Lists = list[ReminderList]
