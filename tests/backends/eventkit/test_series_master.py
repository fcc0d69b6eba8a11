"""A change or removal of a whole series addresses its master event - what EventKit answers for
the series' id - never an occurrence searched for near the series' first start (finding E2 of
the macOS review): a series begun years ago whose first occurrence was removed, or moved alone
further than any search window, is changed and removed all the same. Over the fake port, which
finds no occurrence that was removed, as EventKit does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from backends.eventkit.fake import FakeEventKit

from fruitctl.backends.eventkit.calendars import EventKitCalendars
from fruitctl.backends.eventkit.hosts import Responsible
from fruitctl.backends.eventkit.permission import Access
from fruitctl.backends.eventkit.values import WEEKLY, EventWrite, RawEvent, RawRule
from fruitctl.domain.calendar import occurrence_id, occurrence_key
from fruitctl.ports import EventRange

ITERM = Responsible("iTerm", "/Applications/iTerm.app", "terminal")
FIRST = datetime(2022, 1, 3, 8, 0, tzinfo=UTC)  # a Monday, years before the tests' "now"
WEEK = timedelta(weeks=1)


@pytest.fixture
def fake() -> FakeEventKit:
    port = FakeEventKit()
    port.add_calendar("event", "Home", default=True)
    home = next(iter(port.lists["event"]))
    port.add_event(
        RawEvent(
            "club",
            home,
            "Book club",
            FIRST,
            FIRST + timedelta(hours=1),
            timezone="Europe/Rome",
            rules=(RawRule(WEEKLY, count=300),),
        )
    )
    return port


@pytest.fixture
def backend(fake: FakeEventKit) -> EventKitCalendars:
    return EventKitCalendars(fake, Access(fake, who=lambda: ITERM))


def first_gone(fake: FakeEventKit, how: str) -> None:
    """The person removed the first occurrence alone, or moved it a month on, in Calendar."""
    if how == "removed":
        fake.removed.add(("club", FIRST))
        return
    moved = FIRST + timedelta(days=30)
    first = RawEvent("club", *_rest(fake), moved, moved + timedelta(hours=1), occurrence=FIRST)
    fake.detached[("club", FIRST)] = first


def _rest(fake: FakeEventKit) -> tuple[str, str]:
    series = fake.events_by_id["club"]
    return series.calendar_id, series.title


def writes(fake: FakeEventKit, method: str) -> list[tuple[object, ...]]:
    return [args for name, args in fake.calls if name == method]


@pytest.mark.parametrize("how", ["removed", "moved"])
def test_a_series_whose_first_occurrence_is_gone_is_deleted_whole(
    backend: EventKitCalendars, fake: FakeEventKit, how: str
) -> None:
    first_gone(fake, how)
    backend.delete_event("club", "series")
    assert "club" not in fake.events_by_id
    assert writes(fake, "remove_event") == [("club", None, True)]  # the master, all of it


@pytest.mark.parametrize("how", ["removed", "moved"])
def test_a_series_whose_first_occurrence_is_gone_is_changed_whole(
    backend: EventKitCalendars, fake: FakeEventKit, how: str
) -> None:
    first_gone(fake, how)
    later = FIRST + 150 * WEEK
    through = occurrence_id("club", occurrence_key(later))
    renamed = backend.update_event(through, {"title": "Reading group"}, "series")
    assert renamed.id == "club" and fake.events_by_id["club"].title == "Reading group"
    ((write, future),) = writes(fake, "save_event")
    assert isinstance(write, EventWrite) and write.occurrence is None and future is True
    shown = backend.events(EventRange(later - WEEK, later + WEEK))
    assert [event.title for event in shown] == ["Reading group"] * 2


def test_a_series_moved_through_a_later_occurrence_moves_from_its_master(
    backend: EventKitCalendars, fake: FakeEventKit
) -> None:
    first_gone(fake, "removed")
    later = FIRST + 150 * WEEK
    through = occurrence_id("club", occurrence_key(later))
    backend.update_event(through, {"startAt": later + timedelta(minutes=30)}, "series")
    assert fake.events_by_id["club"].start == FIRST + timedelta(minutes=30)
