"""EventKit's refusals are fruitctl's errors, never internal ones (finding X1 of the macOS
review): an Objective-C exception, as PyObjC raises it (``ValueError``/``objc.error`` carrying
``_pyobjc_info_``), and an ``NSError`` handed back through ``saveReminder:commit:error:``; a rule
EventKit would raise on (``INTERVAL=0``: "If interval is 0, an exception is raised") is refused
before anything reaches it. The real adapter over ``fake_framework``; nothing half-saved stays."""

from __future__ import annotations

import sys
import types
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from backends.eventkit.fake import FakeEventKit
from backends.eventkit.fake_framework import NSError, Tcc, nsexception
from backends.eventkit.fake_mac import CALENDAR, LIST, granted_mac

from fruitctl.backends.eventkit import encode
from fruitctl.backends.eventkit.adapter import EventKitAdapter
from fruitctl.backends.eventkit.calendars import EventKitCalendars
from fruitctl.backends.eventkit.errors import translate, translated
from fruitctl.backends.eventkit.permission import Access, Responsible
from fruitctl.backends.eventkit.reminders import EventKitReminders
from fruitctl.backends.eventkit.tagstore import TagStore
from fruitctl.backends.eventkit.values import (
    DAILY,
    NOT_DETERMINED,
    OBJC_EXCEPTION,
    RawRule,
    ReminderWrite,
    StoreError,
    StoreTimeout,
)
from fruitctl.domain.errors import (
    BackendUnavailable,
    InvalidParams,
    PermissionDenied,
    Timeout,
    Unsupported,
)
from fruitctl.ports import NewEvent, NewReminder

ITERM = Responsible("iTerm", "/Applications/iTerm.app", "terminal")
START = datetime(2026, 3, 2, 8, tzinfo=UTC)


@pytest.fixture
def mac(monkeypatch: pytest.MonkeyPatch) -> Tcc:
    return granted_mac(monkeypatch)


@pytest.fixture
def adapter(mac: Tcc) -> EventKitAdapter:
    return EventKitAdapter()


def reminders(adapter: EventKitAdapter, tmp_path: Path) -> EventKitReminders:
    return EventKitReminders(adapter, Access(adapter, who=lambda: ITERM), TagStore(tmp_path / "x"))


def test_an_exception_eventkit_raises_on_a_value_is_invalid_params(
    adapter: EventKitAdapter, mac: Tcc
) -> None:
    never = ReminderWrite(None, {"calendar_id": LIST, "rules": (RawRule(DAILY, interval=0),)})
    with pytest.raises(StoreError) as raised:
        adapter.save_reminders([never])
    assert raised.value.code == OBJC_EXCEPTION
    assert raised.value.exception == "NSInvalidArgumentException"
    assert any(sent.startswith("initRecurrence") for sent in mac.messages)  # it reached EventKit
    with pytest.raises(InvalidParams) as caught, translated("save the reminders"):
        adapter.save_reminders([never])
    assert "NSInvalidArgumentException" not in caught.value.message  # said in fruitctl's words
    assert caught.value.details["exception"] == "NSInvalidArgumentException"
    assert mac.saved == {} and mac.violations == []


def test_another_objective_c_exception_is_the_backend_unavailable(
    adapter: EventKitAdapter, mac: Tcc, tmp_path: Path
) -> None:
    backend = reminders(adapter, tmp_path)
    broken = nsexception("NSInternalInconsistencyException", "calaccessd went away")
    mac.fail["calendarsForEntityType:"] = broken
    with pytest.raises(BackendUnavailable) as caught:
        backend.lists()
    assert caught.value.retryable and caught.value.details["reason"] == "calaccessd went away"
    assert [found.name for found in backend.lists()] == ["Reminders"]  # and the next one works


def test_an_nserror_from_a_save_is_its_domain_error_and_nothing_half_saved(
    adapter: EventKitAdapter, mac: Tcc, tmp_path: Path
) -> None:
    backend = reminders(adapter, tmp_path)
    needs_due = NSError("EKErrorDomain", 18, "A recurring reminder must have a due date.")
    mac.refusals = [None, needs_due]  # the batch's first saves, its second is refused
    batch = [NewReminder(LIST, "Water plants"), NewReminder(LIST, "Feed the cat")]
    with pytest.raises(InvalidParams, match="a repeating reminder needs a due date"):
        backend.create(batch)
    assert mac.saved == {}
    (made,) = backend.create([NewReminder(LIST, "Post a letter")])
    assert [row["title"] for row in mac.saved.values()] == ["Post a letter"]  # only that one
    assert made.title == "Post a letter"


@pytest.mark.parametrize("rule", ["FREQ=DAILY;INTERVAL=0", "FREQ=WEEKLY;INTERVAL=-1"])
def test_a_rule_eventkit_would_raise_on_is_refused_before_it_reaches_it(
    adapter: EventKitAdapter, mac: Tcc, tmp_path: Path, rule: str
) -> None:
    with pytest.raises(InvalidParams, match="INTERVAL"):
        reminders(adapter, tmp_path).create([NewReminder(LIST, "Water", recurrence=rule)])
    calendars = EventKitCalendars(adapter, Access(adapter, who=lambda: ITERM))
    event = NewEvent(CALENDAR, "Run", START, START + timedelta(hours=1), recurrence=rule)
    with pytest.raises(InvalidParams, match="INTERVAL"):
        calendars.create_event(event)
    assert mac.writes == []
    assert not [sent for sent in mac.messages if sent.startswith("initRecurrence")]


def test_an_access_request_eventkit_never_answers_is_a_timeout() -> None:
    port = FakeEventKit()
    port.status["reminder"] = NOT_DETERMINED
    port.fail_next["request_access"] = StoreTimeout("no answer")
    access = Access(port, may_prompt=True, who=lambda: ITERM)
    with pytest.raises(Timeout, match="Reminders access"):
        access.require("reminder")


def test_a_zone_or_url_apple_has_no_form_for_is_invalid_params(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nothing = types.SimpleNamespace(
        NSTimeZone=types.SimpleNamespace(timeZoneWithName_=lambda name: None),
        NSURL=types.SimpleNamespace(URLWithString_=lambda text: None),
    )
    monkeypatch.setitem(sys.modules, "Foundation", nothing)  # Foundation answers nil
    told: list[object] = []
    event = types.SimpleNamespace(setTimeZone_=told.append, setURL_=told.append)
    for field, value in (("timezone", "Mars/Olympus"), ("url", "not a url")):
        refused = pytest.raises(InvalidParams, match="Could not save the event")
        with refused as caught, translated("save the event"):
            encode.apply(event, {field: value}, encode.EVENT_SETTERS, None)
        assert told == []  # nothing set
        assert value in caught.value.message


@pytest.mark.parametrize(
    ("code", "error"),
    [(8, InvalidParams), (12, PermissionDenied), (14, Unsupported), (5, BackendUnavailable)],
)
def test_eventkits_error_codes_are_what_the_caller_can_do(code: int, error: type) -> None:
    refused = translate(StoreError("EKErrorDomain", code, "EventKit's words"), "save the event")
    assert type(refused) is error
