"""The parts of the EventKit backend above the port that need no store: recurrence rules to and
from RRULE text, permissions and their instructions, and EventKit's errors as domain errors."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest
from backends.eventkit.fake import FakeEventKit

from fruitctl.backends.eventkit.advice import instructions
from fruitctl.backends.eventkit.errors import translate
from fruitctl.backends.eventkit.hosts import Responsible, detect, responsible
from fruitctl.backends.eventkit.permission import Access
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

TERMINAL = Responsible("Terminal", "/System/Applications/Utilities/Terminal.app", "terminal")


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
        "FREQ=YEARLY;BYWEEKNO=20;BYYEARDAY=135;BYSETPOS=1",  # day 135 (May 15th) is in week 20
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
        ("FREQ=DAILY;INTERVAL=two", "INTERVAL=TWO must be a whole number of 1 or more"),
        ("FREQ=DAILY;UNTIL=tomorrow", "UNTIL must be"),
        ("FREQ=DAILY;COUNT=2;UNTIL=20260101", "COUNT and UNTIL"),
    ],
)
def test_rules_eventkit_cannot_keep_are_refused(text: str, problem: str) -> None:
    with pytest.raises(InvalidParams, match=problem):
        raw_rule(text)


# -- permission ----------------------------------------------------------------------------------


TERMINAL_APP = "/System/Applications/Utilities/Terminal.app/Contents/MacOS/Terminal"
FRAMEWORK_PYTHON = (
    "/opt/homebrew/Cellar/python@3.12/3.12.7/Frameworks/Python.framework/Versions/3.12/"
    "Resources/Python.app/Contents/MacOS/Python"
)
CLT_PYTHON = (
    "/Library/Developer/CommandLineTools/Library/Frameworks/Python3.framework/Versions/3.9/"
    "Resources/Python.app/Contents/MacOS/Python"
)
VENV_PYTHON = "/Users/ada/fruitctl/.venv/bin/python3"
SHELL = ["/bin/zsh", "/usr/bin/login"]
VS_CODE = "/Applications/Visual Studio Code.app/Contents/Frameworks/Code Helper (Plugin).app/Contents/MacOS/Code Helper (Plugin)"  # noqa: E501
HOLDER = "/Users/ada/Applications/fruitctl.app/Contents/MacOS/fruitctl"
ROUTE = "run `fruitctl service install`"
NEVER = ("Enable access for", "Open System Settings")

# (who started us, the chain nearest first) -> (name, kind, what the advice says, never says)
HOSTS = {
    "Terminal": ([VENV_PYTHON, *SHELL, TERMINAL_APP], "Terminal", "terminal"),
    "iTerm": (
        [
            "/opt/homebrew/bin/python3.11",
            "/bin/zsh",
            "/Applications/iTerm.app/Contents/MacOS/iTerm2",
        ],
        "iTerm",
        "terminal",
    ),
    "a framework Python in Terminal": (
        [FRAMEWORK_PYTHON, *SHELL, TERMINAL_APP],
        "Terminal",
        "terminal",
    ),
    "the Command Line Tools' Python in Terminal": (
        [CLT_PYTHON, *SHELL, TERMINAL_APP],
        "Terminal",
        "terminal",
    ),
    "Claude Desktop": (
        [
            FRAMEWORK_PYTHON,
            "/Applications/Claude.app/Contents/Helpers/disclaimer",
            "/Applications/Claude.app/Contents/MacOS/Claude",
        ],
        "Claude",
        "app",
    ),
    "VS Code's terminal": ([VENV_PYTHON, "/bin/zsh", VS_CODE], "Visual Studio Code", "app"),
    "Warp": (
        [VENV_PYTHON, "/bin/zsh", "/Applications/Warp.app/Contents/MacOS/stable"],
        "Warp",
        "app",
    ),
    "SSH": (
        [VENV_PYTHON, "/bin/zsh", "/usr/libexec/sshd-session", "/usr/sbin/sshd"],
        "an SSH session",
        "ssh",
    ),
    "launchd": ([FRAMEWORK_PYTHON], f"the Python at {VENV_PYTHON}", "service"),
    "fruitctl.app": ([FRAMEWORK_PYTHON, HOLDER], "fruitctl", "holder"),
}
ADVICE = {
    # kind -> (said when denied, said when not yet asked)
    "terminal": ("Enable access for {name} ({path})", "Run `fruitctl doctor` in {name}"),
    "holder": ("Enable access for fruitctl ({path})", "Allow fruitctl when macOS asks"),
    "app": (
        "{name} cannot ask macOS for your Reminders",
        "point {name}'s MCP server settings at `fruitctl mcp`",
    ),
    "ssh": ("This is an SSH session", ROUTE),
    "service": ("runs in the background without an app", ROUTE),
}


@pytest.mark.parametrize("host", HOSTS)
def test_each_host_gets_advice_that_can_be_followed(host: str) -> None:
    chain, name, kind = HOSTS[host]
    who = responsible(chain, executable=VENV_PYTHON)
    assert (who.name, who.kind) == (name, kind)
    assert who.can_ask == (kind in ("terminal", "holder"))
    denied, unasked = (said.format(name=who.name, path=who.path) for said in ADVICE[kind])
    for status, says in ((DENIED, denied), (NOT_DETERMINED, unasked)):
        steps = " ".join(instructions("reminder", status, who))
        assert says in steps, (host, status, steps)
        if not who.can_ask:  # it never appears in System Settings: never send anyone there
            assert not any(never in steps for never in NEVER), (host, steps)
            assert ROUTE in steps
    assert "Python.app" not in who.path


def test_the_responsible_app_of_a_framework_python_is_never_python() -> None:
    assert responsible([FRAMEWORK_PYTHON, *SHELL, TERMINAL_APP]).path == (
        "/System/Applications/Utilities/Terminal.app"
    )
    nested = "/Applications/Xcode.app/Contents/Developer/Library/Frameworks/Python3.framework/Versions/3.9/Resources/Python.app/Contents/MacOS/Python"  # noqa: E501
    assert responsible([nested, *SHELL, TERMINAL_APP]).name == "Terminal"


def test_macos_own_answer_wins_over_the_parent_walk() -> None:
    chains = {
        100: [VENV_PYTHON, "/sbin/launchd"],  # re-parented after `fruitctl server start`
        42: [TERMINAL_APP],  # the Terminal macOS still holds responsible
        7: [FRAMEWORK_PYTHON, *SHELL, TERMINAL_APP],
    }
    own = os.getpid()
    chains[own] = chains.pop(100)
    assert detect(lambda pid: 42, chains.__getitem__).kind == "terminal"
    assert detect(lambda pid: None, chains.__getitem__).kind == "service"  # off a Mac
    chains[own] = chains.pop(7)
    disclaimed = detect(lambda pid: pid, chains.__getitem__)  # answers for itself
    assert (disclaimed.name, disclaimed.can_ask) == ("Terminal", False)


@pytest.mark.parametrize(
    ("raw", "status", "says"),
    [
        (DENIED, "denied", "Enable access for Terminal"),
        (RESTRICTED, "restricted", "Ask whoever manages this Mac"),
        (NOT_DETERMINED, "not_determined", "Run `fruitctl doctor` in Terminal"),
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
    if raw not in (RESTRICTED, NOT_DETERMINED):
        assert details["instructions"][0] == (
            "Open System Settings > Privacy & Security > Calendars"
        )
    assert ("request_access", ("event", 120.0)) not in fake.calls  # nobody at a terminal


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


@pytest.mark.parametrize(
    ("who", "at_a_terminal", "asks"),
    [
        (TERMINAL, True, True),
        (TERMINAL, False, False),  # piped, or a daemon: nobody sees the prompt
        (Responsible("fruitctl", "/Users/ada/Applications/fruitctl.app", "holder"), False, True),
        (Responsible("Claude", "/Applications/Claude.app", "app"), True, False),
        (Responsible("Code", "/Applications/Visual Studio Code.app", "app"), True, False),
        (Responsible("an SSH session", "/usr/libexec/sshd-session", "ssh"), True, False),
        (Responsible("the Python at /usr/bin/python3", "/usr/bin/python3", "service"), True, False),
    ],
)
def test_a_prompt_is_asked_for_only_where_it_can_be_answered(
    who: Responsible, at_a_terminal: bool, asks: bool
) -> None:
    """Neither a call nor `fruitctl doctor` waits on a prompt nobody sees or macOS never shows:
    they answer not_determined with the route instead."""
    fake = FakeEventKit()
    fake.status["reminder"] = NOT_DETERMINED
    access = Access(fake, may_prompt=at_a_terminal, who=lambda: who)
    assert access.request("reminder") == ("authorized" if asks else "not_determined")
    assert any(name == "request_access" for name, _ in fake.calls) == asks


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
