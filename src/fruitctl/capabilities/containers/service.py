"""Making a first (or another) reminder list or calendar, on any store that can: the embedded
one, a CalDAV account (an MKCALENDAR for to-dos or for events), EventKit. A store that cannot
says so (``unsupported``) rather than pretend.

Each operation checks the name before the store is asked anything - empty, too long, hidden
characters, or taken in any case - so a proposal to make one is refused when filed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import Field

from fruitctl.domain.calendar import CALENDAR_NAME_MAX
from fruitctl.domain.errors import InvalidParams, Unsupported
from fruitctl.domain.text import check_text
from fruitctl.ports import CalendarBackend, CalendarCreation, RemindersBackend
from fruitctl.tools.inputs import Input, parse

LIST_NAME_MAX = 200  # what every reminders backend takes (the embedded store's own bound)


class NewList(Input):
    name: str = Field(
        description=f"The new list's name: 1-{LIST_NAME_MAX} characters, no other list "
        "called the same in any case"
    )


class NewCalendar(Input):
    name: str = Field(
        description=f"The new calendar's name: 1-{CALENDAR_NAME_MAX} characters, no other "
        "calendar called the same in any case"
    )


def list_name(backend: RemindersBackend, args: Any) -> str:
    """The name a new list would get, or the error making it would raise."""
    request = parse(NewList, args, "create_reminder_list")
    taken = (lst.name for lst in backend.lists(with_counts=False))
    return _free_name(request.name, LIST_NAME_MAX, taken, "list")


def create_list(backend: RemindersBackend, args: Any) -> dict[str, Any]:
    return backend.create_list(list_name(backend, args)).to_wire()


def calendar_name(backend: CalendarBackend, args: Any) -> str:
    """The name a new calendar would get, or the error making it would raise."""
    request = parse(NewCalendar, args, "create_calendar")
    if not isinstance(backend, CalendarCreation):
        raise Unsupported(
            "This calendar store cannot make calendars: make one in its own app or on its "
            "server, and it shows up here."
        )
    taken = (c.name for c in backend.calendars())
    return _free_name(request.name, CALENDAR_NAME_MAX, taken, "calendar")


def create_calendar(backend: CalendarBackend, args: Any) -> dict[str, Any]:
    name = calendar_name(backend, args)
    assert isinstance(backend, CalendarCreation)  # calendar_name refused any other
    return backend.create_calendar(name).to_wire()


def _free_name(wanted: str, limit: int, taken: Iterable[str], what: str) -> str:
    name = check_text("name", wanted, limit=limit).strip()
    if not name:
        raise InvalidParams(f"The new {what}'s 'name' must not be empty.", field="name")
    if any(other.casefold() == name.casefold() for other in taken):
        raise InvalidParams.name_taken(what, name, field="name")
    return name
