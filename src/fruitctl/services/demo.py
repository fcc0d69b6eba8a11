"""A believable GTD sample for a new store: lists, contexts as tags, flags, overdue items, and
both date-only and timed due dates, all relative to today so the sample never goes stale."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from fruitctl.domain.dates import now
from fruitctl.domain.reminders import PRIORITY_VALUES
from fruitctl.ports import NewReminder, ReminderQuery, RemindersBackend, ReminderScope

LISTS = ("Inbox", "Work", "Personal", "Errands")

# (list, title, due, priority, tags, flagged, notes); due is days from today, with an hour for a
# timed due date, or None. "done" in tags marks a reminder completed yesterday.
SAMPLE: tuple[
    tuple[str, str, tuple[int, int | None] | None, str, tuple[str, ...], bool, str], ...
] = (
    ("Inbox", "Sort the receipts from the trip", None, "none", (), False, ""),
    (
        "Inbox",
        "Idea: weekly review checklist",
        None,
        "none",
        ("next",),
        False,
        "Clear inboxes, review projects, look at the calendar two weeks ahead.",
    ),
    ("Inbox", "Reply to the school about the trip form", (0, 17), "medium", ("next",), True, ""),
    (
        "Work",
        "Send the Q3 report to Marta",
        (-1, 10),
        "high",
        ("next",),
        True,
        "Numbers are in the shared sheet, tab 'Q3 final'.",
    ),
    (
        "Work",
        "Call the accountant about VAT",
        (1, 9),
        "high",
        ("@calls", "next"),
        True,
        "Bring the Q1 figures.",
    ),
    ("Work", "Review Luca's pull request", (0, None), "medium", ("next",), False, ""),
    (
        "Work",
        "Waiting on the signed contract from Acme",
        (3, None),
        "none",
        ("waiting",),
        False,
        "Sent on Monday; nudge on Thursday if nothing arrives.",
    ),
    ("Work", "Book the team offsite venue", (7, None), "low", (), False, ""),
    ("Work", "Prepare slides for the all-hands", (2, 14), "medium", ("next",), False, ""),
    ("Work", "Expense report for September", (-3, None), "low", ("done",), False, ""),
    ("Personal", "Call mum", (0, 19), "none", ("@calls",), False, ""),
    (
        "Personal",
        "Renew the passport",
        (-2, None),
        "high",
        ("next",),
        True,
        "Photos are in the desk drawer; the form is online.",
    ),
    ("Personal", "Dentist check-up", (5, 8), "medium", ("@calls",), False, "Ask about the x-ray."),
    ("Personal", "Plan the weekend hike", (4, None), "low", (), False, ""),
    ("Personal", "Waiting for the plumber's quote", None, "none", ("waiting",), False, ""),
    ("Errands", "Pick up dry cleaning", (1, None), "none", ("@errands",), False, ""),
    ("Errands", "Buy a birthday present for Giulia", (6, None), "medium", ("@errands",), True, ""),
    ("Errands", "Return the library books", (-1, None), "low", ("@errands",), False, ""),
    (
        "Errands",
        "Groceries: milk, eggs, coffee",
        (0, 18),
        "none",
        ("@errands", "next"),
        False,
        "Oat milk if they have it.",
    ),
    ("Reminders", "Water the plants", (2, None), "none", (), False, ""),
    ("Reminders", "Back up the laptop", (-4, None), "low", ("done",), False, ""),
)


@dataclass(frozen=True)
class DemoService:
    backend: RemindersBackend

    def seed(self) -> dict[str, Any]:
        """Fill an empty store; a store that holds any reminder is left untouched."""
        if self.backend.fetch(ReminderQuery(ReminderScope(None, "all"), limit=1)):
            return {"seeded": False, "reason": "the store already holds reminders", "created": 0}
        lists = {lst.name: lst.id for lst in self.backend.lists()}
        for name in LISTS:
            if name not in lists:
                lists[name] = self.backend.create_list(name).id
        today = now().date()
        created = self.backend.create([_draft(row, lists, today) for row in SAMPLE])
        return {"seeded": True, "lists": list(LISTS), "created": len(created)}


def _draft(row: Any, lists: dict[str, str], today: date) -> NewReminder:
    list_name, title, due, priority, tags, flagged, notes = row
    done = "done" in tags
    return NewReminder(
        list_id=lists[list_name],
        title=title,
        notes=notes or None,
        priority=PRIORITY_VALUES[priority],
        due=_due(due, today),
        completion=now() - timedelta(days=1) if done else None,
        tags=tuple(tag for tag in tags if tag != "done"),
        is_flagged=flagged,
    )


def _due(due: tuple[int, int | None] | None, today: date) -> date | datetime | None:
    if due is None:
        return None
    days, hour = due
    day = today + timedelta(days=days)
    if hour is None:
        return day  # date-only: stays a date
    return datetime.combine(day, time(hour)).astimezone()
