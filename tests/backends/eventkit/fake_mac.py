"""A Mac for the real ``EventKitAdapter`` on Linux: ``fake_framework`` installed as PyObjC, with
access granted, a reminder list and a calendar, and rows other apps saved."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from backends.eventkit.fake_framework import FakeCalendar, Tcc, install
from backends.eventkit.fake_objc import NSDate, NSTimeZone

from fruitctl.backends.eventkit.values import FULL_ACCESS

REMINDERS, EVENTS = 1, 0
LIST, CALENDAR = "list-1", "calendar-1"


def granted_mac(monkeypatch: pytest.MonkeyPatch) -> Tcc:
    mac = Tcc(status={EVENTS: FULL_ACCESS, REMINDERS: FULL_ACCESS})
    mac.calendars[REMINDERS] = [FakeCalendar(LIST, "Reminders", REMINDERS)]
    mac.calendars[EVENTS] = [FakeCalendar(CALENDAR, "Home", EVENTS)]
    install(mac, monkeypatch)
    return mac


def ns_date(when: datetime) -> NSDate:
    return NSDate(when.timestamp())


def saved_reminder(mac: Tcc, title: str, **props: Any) -> str:
    """A reminder another app saved; its id."""
    ident = mac.new_id("reminder")
    stamp = mac.stamp()
    mac.saved[ident] = {
        "kind": "reminder",
        "calendar": LIST,
        "title": title,
        "priority": 0,
        "creationDate": stamp,
        "lastModifiedDate": stamp,
        **props,
    }
    return ident


def saved_event(mac: Tcc, title: str, start: datetime, end: datetime, **props: Any) -> str:
    """An event another app saved; its id."""
    ident = mac.new_id("event")
    stamp = mac.stamp()
    mac.saved[ident] = {
        "kind": "event",
        "calendar": CALENDAR,
        "title": title,
        "startDate": ns_date(start),
        "endDate": ns_date(end),
        "timeZone": NSTimeZone("Europe/Rome"),
        "creationDate": stamp,
        "lastModifiedDate": stamp,
        **props,
    }
    return ident
