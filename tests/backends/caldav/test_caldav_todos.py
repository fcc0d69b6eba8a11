"""Reminders <-> VTODO: every field through a real server, and VTODOs other clients write."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from caldav_server import Account, OpenBackend, vtodo

from fruitctl.backends import ical_events, ical_plain
from fruitctl.backends.caldav import CaldavReminders, todos
from fruitctl.backends.ical_events import BrokenObject
from fruitctl.ports import NewReminder, ReminderQuery, ReminderScope

NEW_YORK = timezone(timedelta(hours=-5))
KOLKATA = timezone(timedelta(hours=5, minutes=30))
EVERYTHING = ReminderQuery(ReminderScope(None, "all"))


def _default(backend: CaldavReminders) -> str:
    return backend.lists()[0].id


def test_every_field_round_trips_through_the_server(open_backend: OpenBackend) -> None:
    first = open_backend()
    (parent,) = first.create([NewReminder(list_id=_default(first), title="project")])
    (child,) = first.create(
        [
            NewReminder(
                list_id=_default(first),
                title="call, then write; twice",
                notes="line one\nline two, with ; and \\ too",
                priority=1,
                due=datetime(2026, 2, 24, 18, 0, tzinfo=NEW_YORK),
                tags=("@calls", "next, soon", "Äpfel"),
                is_flagged=True,
                url="https://example.com/a?b=c",
                parent_id=parent.id,
                recurrence="FREQ=WEEKLY;BYDAY=TU",
            )
        ]
    )
    done = first.update(child.id, {"completionDate": datetime(2026, 2, 25, 9, 30, tzinfo=KOLKATA)})
    # A second install with an empty mirror sees exactly what the first one wrote.
    second = open_backend()
    assert second.get(child.id) == done
    assert second.get(parent.id) == parent
    assert done.parentId == parent.id
    assert done.recurrence == "FREQ=WEEKLY;BYDAY=TU"
    assert done.tags == ("@calls", "next, soon", "Äpfel")
    assert done.dueDate == "2026-02-25T00:00:00+01:00"
    assert done.completionDate == "2026-02-25T05:00:00+01:00"
    assert done.isCompleted and done.isFlagged and done.priority == 1


def test_a_date_only_due_date_stays_a_date_on_the_server(
    backend: CaldavReminders, caldav_account: Account
) -> None:
    (created,) = backend.create(
        [NewReminder(list_id=_default(backend), title="d", due=date(2026, 2, 24))]
    )
    (url,) = caldav_account.members(caldav_account.made[0])
    text, _ = caldav_account.get(url)
    assert "DUE;VALUE=DATE:20260224" in text
    assert created.dueDate == "2026-02-24"


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["DUE;TZID=Europe/Rome:20260224T090000"], {"dueDate": "2026-02-24T09:00:00+01:00"}),
        (["DUE:20260224T090000"], {"dueDate": "2026-02-24T09:00:00+01:00"}),  # floating: host
        (["DUE:20260224T080000Z"], {"dueDate": "2026-02-24T09:00:00+01:00"}),  # UTC: host zone
        (["DUE;TZID=America/New_York:20260224T090000"], {"dueDate": "2026-02-24T15:00:00+01:00"}),
        (["DUE;VALUE=DATE:20260224"], {"dueDate": "2026-02-24"}),
        (["STATUS:COMPLETED", "LAST-MODIFIED:20260105T120000Z"], {"isCompleted": True}),
        (["COMPLETED:20260105T120000Z"], {"completionDate": "2026-01-05T13:00:00+01:00"}),
        (["STATUS:NEEDS-ACTION"], {"isCompleted": False, "completionDate": None}),
        (["STATUS:CANCELLED"], {"isCompleted": True}),
        (["CATEGORIES:a,b", "CATEGORIES:b,c"], {"tags": ("a", "b", "c")}),
        (["PRIORITY:0"], {"priority": 0}),
        (["PRIORITY:3"], {"priority": 3}),
        (["RELATED-TO;RELTYPE=CHILD:other"], {"parentId": None}),
        (["SUMMARY:x"], {"creationDate": "2026-01-01T10:00:00+01:00"}),  # DTSTAMP stands in
        (["CREATED:20251231T230000Z"], {"creationDate": "2026-01-01T00:00:00+01:00"}),
    ],
    ids=lambda v: "|".join(v) if isinstance(v, list) else None,
)
def test_vtodos_of_other_clients_are_read_faithfully(
    backend: CaldavReminders, caldav_account: Account, lines: list[str], expected: dict[str, object]
) -> None:
    calendar = caldav_account.made[0]
    assert caldav_account.put(calendar + "other.ics", vtodo("other-1@example.com", *lines)) == 201
    found = backend.get("other-1@example.com")
    for field, value in expected.items():
        assert getattr(found, field) == value, field


def test_an_update_keeps_what_fruitctl_does_not_know(
    backend: CaldavReminders, caldav_account: Account
) -> None:
    url = caldav_account.made[0] + "alarm.ics"
    lines = [
        "SUMMARY:with an alarm",
        "X-OTHER-CLIENT:keep me",
        "BEGIN:VALARM",
        "ACTION:DISPLAY",
        "DESCRIPTION:ring",
        "TRIGGER:-PT15M",
        "END:VALARM",
    ]
    assert caldav_account.put(url, vtodo("alarm-1", *lines)) == 201
    updated = backend.update("alarm-1", {"title": "renamed", "priority": 5})
    text, _ = caldav_account.get(url)
    assert "X-OTHER-CLIENT:keep me" in text
    assert "BEGIN:VALARM" in text and "TRIGGER:-PT15M" in text
    assert (updated.title, updated.priority) == ("renamed", 5)


def test_a_due_date_of_another_kind_drops_a_dtstart_of_the_old_kind(
    backend: CaldavReminders, caldav_account: Account
) -> None:
    url = caldav_account.made[0] + "start.ics"
    lines = ["SUMMARY:s", "DTSTART:20260220T090000Z", "DUE:20260224T090000Z"]
    assert caldav_account.put(url, vtodo("start-1", *lines)) == 201
    updated = backend.update("start-1", {"dueDate": date(2026, 3, 1)})
    text, _ = caldav_account.get(url)
    assert "DTSTART" not in text  # DTSTART and DUE must both be dates or both date-times
    assert updated.dueDate == "2026-03-01"


def test_a_cleared_completion_reopens_the_todo(backend: CaldavReminders) -> None:
    stamp = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    (done,) = backend.create([NewReminder(list_id=_default(backend), title="t", completion=stamp)])
    reopened = backend.update(done.id, {"completionDate": None})
    assert (reopened.isCompleted, reopened.completionDate) == (False, None)
    assert [r.id for r in backend.fetch(ReminderQuery())] == [done.id]


# -- the mapping on its own ---------------------------------------------------------------------


def test_garbage_is_a_broken_todo() -> None:
    for text in (
        "not iCalendar",
        "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n",
        vtodo("x", "PRIORITY:hi"),
    ):
        with pytest.raises(BrokenObject):
            todos.read(text, "list")


def test_the_master_is_read_not_an_overridden_instance() -> None:
    text = vtodo("series", "SUMMARY:master", "RRULE:FREQ=DAILY", "DTSTART:20260101T090000Z")
    instance = "BEGIN:VTODO\r\nUID:series\r\nRECURRENCE-ID:20260102T090000Z\r\nSUMMARY:moved\r\n"
    text = text.replace("BEGIN:VTODO", instance + "END:VTODO\r\nBEGIN:VTODO", 1)
    found = todos.read(text, "list")
    assert (found.title, found.recurrence) == ("master", "FREQ=DAILY")


_PLAIN = [
    vtodo("plain-1", "SUMMARY:Call mom\\, then \\; the bank \\n twice", "PRIORITY:5"),
    vtodo("plain-2", "summary:lower-case name", "DUE;VALUE=DATE:20260301", "CATEGORIES:a,b\\,c"),
    vtodo(
        "plain-3",
        "SUMMARY:done",
        "STATUS:COMPLETED",
        'COMPLETED;X-FRUITCTL-OFFSET="+05:30":20260102T030405Z',
        'CREATED;X-FRUITCTL-OFFSET="-05:00":20251231T230000Z',
        "LAST-MODIFIED:20260102T030405Z",
    ),
    vtodo("plain-4", "DUE;TZID=Europe/Berlin:20260301T090000", "X-FRUITCTL-FLAGGED:TRUE"),
    vtodo("plain-5", "DESCRIPTION:a long\r\n  folded line", "URL:https://example.org/a?b=c"),
    vtodo(
        "plain-6",
        "RRULE:FREQ=WEEKLY;BYDAY=MO,WE",
        "DUE:20260302T090000Z",
        "DTSTART;X-FRUITCTL-ANCHOR=TRUE:20260302T090000Z",
        "RELATED-TO;RELTYPE=PARENT:plain-1",
    ),
    vtodo("plain-7", "DUE:20260302T090000", "STATUS:CANCELLED", "X-OTHER:a\\,b", "SEQUENCE:3"),
    vtodo("plain-8", "RELATED-TO;RELTYPE=CHILD:other", "PERCENT-COMPLETE:40", "CLASS:PRIVATE"),
    vtodo("plain-9", 'SUMMARY;ALTREP="cid:a:b":Quoted: yes', 'X-A;X-B="c:d":e\\,f'),
]
_NOT_PLAIN = [
    vtodo("alarm", "BEGIN:VALARM", "TRIGGER:-PT5M", "ACTION:DISPLAY", "END:VALARM"),
    vtodo("moved", "RECURRENCE-ID:20260102T090000Z"),
    vtodo("twice", "CATEGORIES:a", "CATEGORIES:b"),
    vtodo("escaped", "SUMMARY;X-A=b\\:c:x"),
    vtodo("mars", "DUE;TZID=Mars/Olympus:20260301T090000"),
    vtodo("bad", "PRIORITY:hi"),
    vtodo("bad-unread", "PERCENT-COMPLETE:most"),
    vtodo("bad-name", "NOT A NAME:x"),
    vtodo("dates", "RDATE:20260301T090000Z"),
    vtodo("calname", "SUMMARY:x").replace("PRODID:", "X-WR-CALNAME:x\r\nPRODID:"),
]


def test_a_plain_todo_read_from_its_lines_is_the_reminder_a_whole_parse_gives() -> None:
    for text in _PLAIN:
        cal = ical_plain.todo_calendar(text)
        assert cal is not None, text
        whole = ical_events.read_calendar(text)
        assert todos._read(todos.master(cal), "l") == todos._read(todos.master(whole), "l"), text


def test_todos_the_line_reader_is_not_sure_of_are_parsed_whole() -> None:
    for text in _NOT_PLAIN:
        assert ical_plain.todo_calendar(text) is None, text
    with pytest.raises(BrokenObject):  # as a whole parse finds it, not the line reader
        todos.read(vtodo("bad-unread", "PERCENT-COMPLETE:most"), "list")
