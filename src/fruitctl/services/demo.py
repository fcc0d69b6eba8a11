"""A believable GTD sample for a new store: lists, contexts as tags, flags, overdue items, and
both date-only and timed due dates; and a week of events (a daily stand-up, a weekly review,
an all-day trip), all relative to today so the sample never goes stale."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from fruitctl.domain.dates import now, wire_zone
from fruitctl.domain.reminders import PRIORITY_VALUES, ReminderList
from fruitctl.ports import (
    CalendarBackend,
    CalendarCreation,
    DefaultListChoice,
    EventRange,
    NewEvent,
    NewReminder,
    ReminderQuery,
    RemindersBackend,
    ReminderScope,
)

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
    ("Personal", "Water the plants", (2, None), "none", (), False, ""),
    ("Personal", "Back up the laptop", (-4, None), "low", ("done",), False, ""),
)


CALENDARS = ("Work", "Personal")
PERSONAL = "Personal"  # the sample calendar a store's default calendar stands in for

# (calendar, title, day from today, start "HH:MM" or None for all-day, minutes or days,
#  location, notes, RRULE)
EVENTS: tuple[tuple[str, str, int, str | None, int, str, str, str], ...] = (
    ("Work", "Team stand-up", 0, "09:30", 15, "", "", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"),
    ("Work", "Design review", -1, "15:00", 60, "Room 3", "", ""),
    ("Work", "1:1 with Marta", 1, "11:00", 30, "Marta's office", "Q3 report, offsite", ""),
    (
        "Work",
        "Q4 planning",
        2,
        "14:00",
        90,
        "Big meeting room",
        "Bring the numbers from the shared sheet, tab 'Q3 final'.",
        "",
    ),
    (
        "Work",
        "Weekly review",
        3,
        "17:00",
        60,
        "",
        "GTD weekly review: clear the inboxes, review every project, look at the calendar "
        "two weeks ahead, pick next actions.",
        "FREQ=WEEKLY",
    ),
    ("Personal", "Dentist check-up", 5, "08:00", 45, "Studio Bianchi", "Ask about the x-ray.", ""),
    ("Personal", "Dinner with Giulia", 3, "20:00", 120, "Trattoria da Enzo", "", ""),
    ("Personal", "Weekend in the hills", 5, None, 2, "Rifugio Lagazuoi", "Boots, map.", ""),
    ("Personal", "Giulia's birthday", 6, None, 1, "", "", "FREQ=YEARLY"),
)


@dataclass(frozen=True)
class DemoService:
    backend: RemindersBackend
    calendars: CalendarBackend | None = None
    refuse: str | None = None
    """Why no sample may be written here at all (a person's own data), or None."""
    remote: str | None = None
    """The server the stores write to (a CalDAV account's host), or None for this machine."""

    def seed(self, *, into_remote: bool = False) -> dict[str, Any]:
        """Fill an empty store; reminders and events are each added only where there are
        none yet, so a store in use is left untouched. A remote account only when the person
        said so: every device that syncs it would show the sample."""
        if self.refuse is None and self.remote is not None and not into_remote:
            return _not_seeded(
                f"your reminders and calendars are on the CalDAV server {self.remote}, and "
                "the sample would reach every device that syncs with it - run "
                "`fruitctl demo --into-remote` to put it there anyway"
            )
        if self.refuse is not None:
            return _not_seeded(self.refuse)
        result = self._seed_reminders()
        result["events"] = self._seed_events()
        return result

    def _seed_reminders(self) -> dict[str, Any]:
        if self.backend.fetch(ReminderQuery(ReminderScope(None, "all"), limit=1)):
            return _not_seeded("the store already holds reminders")
        found = self.backend.lists(with_counts=False)
        lists = {lst.name: lst.id for lst in found}
        inbox = _inbox(found)
        if inbox is not None:  # the store's own empty default list takes the inbox's place
            lists[LISTS[0]] = inbox.id
        for name in LISTS:
            if name not in lists:
                lists[name] = self.backend.create_list(name).id
        today = now().date()
        created = self.backend.create([_draft(row, lists, today) for row in SAMPLE])
        if isinstance(self.backend, DefaultListChoice):  # where new things land, as in GTD
            self.backend.set_default_list(lists[LISTS[0]])
        names = [inbox.name if inbox is not None else LISTS[0], *LISTS[1:]]
        return {"seeded": True, "reason": None, "lists": names, "created": len(created)}

    def _seed_events(self) -> int:
        backend = self.calendars
        if backend is None:
            return 0
        moment = now()
        year = timedelta(days=366)
        if backend.events(EventRange(moment - year, moment + year, limit=1)):
            return 0
        found = backend.calendars()
        ids = {c.name: c.id for c in found if not c.readOnly}
        default = next((c for c in found if c.isDefault and not c.readOnly), None)
        if default is not None and not ids.keys() & set(CALENDARS):
            ids[PERSONAL] = default.id  # the default calendar is the person's own: no empty one
        for name in CALENDARS:
            if name not in ids and isinstance(backend, CalendarCreation):
                ids[name] = backend.create_calendar(name).id
        if not ids:  # no calendar, and none can be made here: reminders only
            return 0
        first = next(iter(ids.values()))
        for row in EVENTS:
            backend.create_event(_event(row, ids.get(row[0], first), moment.date()))
        return len(EVENTS)


def _not_seeded(reason: str) -> dict[str, Any]:
    """What ``seed`` answers when it wrote nothing: the same keys as when it did."""
    return {"seeded": False, "reason": reason, "lists": [], "created": 0, "events": 0}


def _inbox(found: list[ReminderList]) -> ReminderList | None:
    """The list the sample's inbox goes into instead of a new one: the store's default, when
    it is none of the sample's lists - a new store's only list, which would otherwise be left
    empty beside them."""
    default = next((lst for lst in found if lst.isDefault), None)
    if default is None or default.name in LISTS:
        return None
    return default


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
    return datetime.combine(day, time(hour), wire_zone())


def _event(row: Any, calendar_id: str, today: date) -> NewEvent:
    _, title, days, at, length, location, notes, rule = row
    day = today + timedelta(days=days)
    start: date | datetime
    if at is None:  # all-day: dates, the end exclusive
        start, end = day, day + timedelta(days=length)
        tz = None
    else:
        mine = wire_zone()
        tz = mine.key
        start = datetime.combine(day, time.fromisoformat(at), mine)
        end = start + timedelta(minutes=length)
    return NewEvent(
        calendar_id=calendar_id,
        title=title,
        start=start,
        end=end,
        timezone=tz,
        location=location or None,
        notes=notes or None,
        recurrence=rule or None,
    )
