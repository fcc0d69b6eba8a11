"""The store belongs to one thread (finding C1 of the macOS review) and every call drains its
own autorelease pool (C2): the real ``EventKitAdapter`` over ``fake_framework``, whose every
Objective-C object checks each message it is sent - from the one thread that sent the first,
inside an open pool - and records a violation instead of waiting for a race to show one."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from backends.eventkit.fake_framework import Tcc
from backends.eventkit.fake_mac import CALENDAR, EVENTS, LIST, granted_mac, saved_event

from fruitctl.backends.eventkit.adapter import EventKitAdapter
from fruitctl.backends.eventkit.values import (
    NOT_DETERMINED,
    EventKitPort,
    EventWrite,
    ReminderWrite,
)
from fruitctl.domain.errors import Timeout
from fruitctl.domain.writes import Gate, gated

CALLERS = 8  # the daemon's worker pool and async tasks, several at once
ROUNDS = 5
START = datetime(2026, 3, 2, 8, tzinfo=UTC)


@pytest.fixture
def mac(monkeypatch: pytest.MonkeyPatch) -> Tcc:
    return granted_mac(monkeypatch)


def new(title: str) -> ReminderWrite:
    return ReminderWrite(None, {"title": title, "calendar_id": LIST})


def in_threads(work: Callable[[int], None]) -> list[BaseException]:
    """``work(n)`` on CALLERS threads released together; what any of them raised."""
    ready = threading.Barrier(CALLERS)
    failed: list[BaseException] = []

    def caller(n: int) -> None:
        ready.wait()
        try:
            work(n)
        except BaseException as exc:  # kept for the assertion, not lost in the thread
            failed.append(exc)

    threads = [threading.Thread(target=caller, args=(n,)) for n in range(CALLERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failed


def test_calls_from_many_threads_reach_eventkit_from_one_thread_in_pools(mac: Tcc) -> None:
    adapter = EventKitAdapter()

    def work(n: int) -> None:
        for round_ in range(ROUNDS):
            (made,) = adapter.save_reminders([new(f"{n}.{round_}")])
            assert adapter.reminder(made.id) == made
            adapter.fetch_reminders([LIST], "all", None, None, 5.0)
            adapter.calendars("reminder")
            adapter.refresh()

    assert in_threads(work) == []
    assert mac.violations == []
    assert mac.owner is not None and mac.owner is not threading.current_thread()
    titles = sorted(row["title"] for row in mac.saved.values())
    assert titles == sorted(f"{n}.{r}" for n in range(CALLERS) for r in range(ROUNDS))
    assert mac.pools.entered == mac.pools.drained > 0


def test_a_write_that_fails_resets_no_other_callers_objects(mac: Tcc) -> None:
    """A failed write resets the store; with one owner no other caller is decoding then."""
    adapter = EventKitAdapter()
    for n in range(CALLERS):
        adapter.save_reminders([new(f"kept {n}")])

    def work(n: int) -> None:
        for _ in range(ROUNDS):
            if n % 2:
                bad = ReminderWrite("no-such-reminder", {"title": "x"})
                with pytest.raises(Exception, match="no reminder with id"):
                    adapter.save_reminders([bad])
            else:
                found = adapter.fetch_reminders(None, "all", None, None, 5.0)
                assert len(found) == CALLERS

    assert in_threads(work) == []
    assert mac.violations == []


def test_a_write_whose_deadline_passed_while_it_waited_changes_nothing(mac: Tcc) -> None:
    """The gateway closes a write's gate at its deadline; a write still queued behind a slow
    EventKit call then stops at the gate instead of landing after its caller was told no."""
    adapter = EventKitAdapter()
    adapter.calendars("reminder")  # the store is made
    release = threading.Event()
    mac.hold["calendarsForEntityType:"] = release
    slow = threading.Thread(target=adapter.calendars, args=("reminder",))
    slow.start()
    assert mac.holding.wait(60)  # the owner thread is inside EventKit
    gate, outcome = Gate(), []

    def write() -> None:
        with gated(gate):
            try:
                outcome.append(adapter.save_reminders([new("Too late")]))
            except Timeout as exc:
                outcome.append(exc)

    writer = threading.Thread(target=write)
    writer.start()
    assert gate.close()  # the caller's deadline: the write has not reached the store
    release.set()
    for thread in (slow, writer):
        thread.join()
    assert len(outcome) == 1 and isinstance(outcome[0], Timeout)
    assert mac.saved == {} and mac.violations == []


def port_calls(adapter: EventKitAdapter, mac: Tcc) -> dict[str, Callable[[], Any]]:
    """One call of every method of the port, on the fake Mac."""
    event = saved_event(mac, "Dentist", START, START + timedelta(hours=1))
    doomed = saved_event(mac, "Old", START, START + timedelta(hours=1))
    write = ReminderWrite(None, {"title": "Stamps", "calendar_id": LIST})
    return {
        "authorization": lambda: adapter.authorization("reminder"),
        "request_access": lambda: adapter.request_access("event", 5.0),
        "calendars": lambda: adapter.calendars("event"),
        "default_calendar": lambda: adapter.default_calendar("reminder"),
        "create_calendar": lambda: adapter.create_calendar("reminder", "Errands"),
        "remove_calendar": lambda: adapter.remove_calendar("nothing"),
        "fetch_reminders": lambda: adapter.fetch_reminders(None, "incomplete", None, None, 5.0),
        "reminder": lambda: adapter.reminder("nothing"),
        "save_reminders": lambda: adapter.save_reminders([write]),
        "remove_reminders": lambda: adapter.remove_reminders([]),
        "events": lambda: adapter.events(START, START + timedelta(days=1), [CALENDAR]),
        "event": lambda: adapter.event(event),
        "save_event": lambda: adapter.save_event(EventWrite(event, None, {"title": "x"}), False),
        "remove_event": lambda: adapter.remove_event(doomed, None, False),
        "refresh": adapter.refresh,
    }


def test_every_port_method_runs_in_a_pool_of_its_own_on_the_owner_thread(mac: Tcc) -> None:
    mac.status[EVENTS] = NOT_DETERMINED  # so that the request asks
    adapter = EventKitAdapter()
    calls = port_calls(adapter, mac)
    assert set(calls) == {name for name in vars(EventKitPort) if not name.startswith("_")}
    for name, call in calls.items():
        before, sent = mac.pools.entered, len(mac.messages)
        call()
        assert mac.pools.entered > before, f"{name} opened no autorelease pool"
        assert len(mac.messages) > sent, f"{name} sent EventKit nothing"
        assert mac.pools.drained == mac.pools.entered, f"{name} left a pool open"
    assert mac.violations == []
    assert mac.owner is not threading.current_thread()
