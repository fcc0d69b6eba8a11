"""The parts of the EventKit backend above the port that need no store: recurrence rules to and
from RRULE text, permissions and their instructions, and EventKit's errors as domain errors."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from backends.eventkit.fake import FakeEventKit

from fruitctl.backends.eventkit.errors import translate
from fruitctl.backends.eventkit.permission import Access, Responsible, responsible
from fruitctl.backends.eventkit.rules import raw_rule, recurrence_text
from fruitctl.backends.eventkit.values import (
    DENIED,
    MONTHLY,
    NOT_DETERMINED,
    RESTRICTED,
    WEEKLY,
    WRITE_ONLY,
    RawRule,
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

TERMINAL = Responsible("Terminal", "/System/Applications/Utilities/Terminal.app")


# -- recurrence ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "FREQ=DAILY",
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR",
        "FREQ=MONTHLY;BYDAY=-1FR",
        "FREQ=MONTHLY;BYMONTHDAY=1,15;COUNT=10",
        "FREQ=YEARLY;BYDAY=2SU;BYMONTH=3;UNTIL=20301231T230000Z",
        "FREQ=WEEKLY;BYDAY=TU;WKST=MO",
        "FREQ=YEARLY;BYWEEKNO=20;BYYEARDAY=100;BYSETPOS=1",
    ],
)
def test_rules_round_trip(text: str) -> None:
    assert recurrence_text([raw_rule(text)]) == text
    reordered = ";".join(reversed(text.split(";")))
    assert raw_rule(reordered) == raw_rule(text)


def test_rules_read_from_eventkit_values() -> None:
    rule = RawRule(WEEKLY, 1, ((2, 0), (6, 0)), end=datetime(2026, 6, 30, 12, tzinfo=UTC))
    assert recurrence_text([rule]) == "FREQ=WEEKLY;BYDAY=MO,FR;UNTIL=20260630T120000Z"
    assert recurrence_text([rule], all_day=True) == "FREQ=WEEKLY;BYDAY=MO,FR;UNTIL=20260630"
    assert recurrence_text([RawRule(MONTHLY, 3, count=4)]) == "FREQ=MONTHLY;INTERVAL=3;COUNT=4"
    assert recurrence_text([]) is None
    assert raw_rule("rrule:freq=weekly;byday=we").days_of_week == ((4, 0),)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("FREQ=HOURLY", "repeat DAILY, WEEKLY, MONTHLY or YEARLY"),
        ("FREQ=DAILY;BYHOUR=9", "cannot keep BYHOUR"),
        ("FREQ=WEEKLY;BYDAY=XX", "unknown day 'XX'"),
        ("FREQ=DAILY;INTERVAL=two", "INTERVAL must be a number"),
        ("FREQ=DAILY;UNTIL=tomorrow", "UNTIL must be"),
        ("FREQ=DAILY;COUNT=2;UNTIL=20260101", "COUNT and UNTIL"),
    ],
)
def test_rules_eventkit_cannot_keep_are_refused(text: str, problem: str) -> None:
    with pytest.raises(InvalidParams, match=problem):
        raw_rule(text)


# -- permission ----------------------------------------------------------------------------------


def test_the_responsible_app_is_the_nearest_bundle() -> None:
    chain = [
        "/opt/homebrew/bin/python3.11",
        "/bin/zsh",
        "/Applications/iTerm.app/Contents/MacOS/iTerm2",
        "/sbin/launchd",
    ]
    assert responsible(chain) == Responsible("iTerm", "/Applications/iTerm.app")
    claude = ["/usr/bin/python3", "/Applications/Claude.app/Contents/MacOS/Claude"]
    assert responsible(claude).name == "Claude"
    daemon = responsible(["/usr/local/bin/python3.11"], executable="/usr/local/bin/python3.11")
    assert daemon.background and daemon.name == "the Python at /usr/local/bin/python3.11"


@pytest.mark.parametrize(
    ("raw", "status", "says"),
    [
        (DENIED, "denied", "Enable access for Terminal"),
        (RESTRICTED, "restricted", "Ask whoever manages this Mac"),
        (NOT_DETERMINED, "not_determined", "run `fruitctl doctor` once in Terminal"),
        (WRITE_ONLY, "denied", "from 'Add Only' to 'Full Access'"),
    ],
)
def test_without_access_a_call_is_refused_with_instructions(
    raw: int, status: str, says: str
) -> None:
    fake = FakeEventKit()
    fake.status["event"] = raw
    access = Access(fake, who=lambda: TERMINAL)
    assert access.status("event") == status
    with pytest.raises(PermissionDenied) as refused:
        access.require("event")
    details = refused.value.details
    assert details["service"] == "calendar" and details["status"] == status
    assert any(says in step for step in details["instructions"])
    if raw != RESTRICTED:
        assert details["instructions"][0] == (
            "Open System Settings > Privacy & Security > Calendars"
        )
    assert ("request_access", ("event", 120.0)) not in fake.calls  # a daemon never prompts


def test_an_interactive_process_asks_once_and_a_grant_lets_it_in() -> None:
    fake = FakeEventKit()
    fake.status["reminder"] = NOT_DETERMINED
    Access(fake, may_prompt=True, who=lambda: TERMINAL).require("reminder")
    assert [c for c in fake.calls if c[0] == "request_access"] == [
        ("request_access", ("reminder", 120.0))
    ]
    fake.status["reminder"] = NOT_DETERMINED
    fake.grant_on_request = False
    refusing = Access(fake, may_prompt=True, who=lambda: TERMINAL)
    for _ in range(2):
        with pytest.raises(PermissionDenied, match="Reminders access not granted"):
            refusing.require("reminder")
    assert len([c for c in fake.calls if c[0] == "request_access"]) == 2  # once per process


def test_a_background_daemon_is_told_how_to_get_the_prompt() -> None:
    fake = FakeEventKit()
    fake.status["reminder"] = DENIED
    daemon = Responsible("the Python at /usr/bin/python3", "/usr/bin/python3", background=True)
    with pytest.raises(PermissionDenied) as refused:
        Access(fake, who=lambda: daemon).require("reminder")
    steps = refused.value.details["instructions"]
    assert "Enable access for the Python at /usr/bin/python3 (/usr/bin/python3)" in steps
    assert any("background service cannot show" in step for step in steps)


# -- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "kind", "says"),
    [
        (StoreError("EKErrorDomain", 4, "dates inverted"), InvalidParams, "end is before"),
        (StoreError("EKErrorDomain", 6, "read only"), PermissionDenied, "read-only"),
        (StoreError("EKErrorDomain", 23, "no reminders"), Unsupported, "does not hold"),
        (StoreError("NSCocoaErrorDomain", 4097, "connection lost"), BackendUnavailable, "lost"),
        (StoreTimeout(), Timeout, "did not answer in time"),
    ],
)
def test_eventkit_failures_become_domain_errors(
    error: StoreError | StoreTimeout, kind: type[Exception], says: str
) -> None:
    translated = translate(error, "save the reminder")
    assert isinstance(translated, kind) and says in translated.message
    assert translated.retryable == (kind in (BackendUnavailable, Timeout))
