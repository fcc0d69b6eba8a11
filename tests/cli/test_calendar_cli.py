"""``fruitctl calendars`` and ``fruitctl calendar …`` as a person and a script use them: concise
text, exact JSON with --json, one-line errors with the documented exit codes."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from fruitctl.cli.app import app

runner = CliRunner()
ROME = ZoneInfo("Europe/Rome")


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args))


def cli_json(*args: str) -> Any:
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _soon(hours: float) -> str:
    return (datetime.now(ROME).replace(microsecond=0) + timedelta(hours=hours)).isoformat()


@pytest.mark.parametrize(
    "command",
    [
        ["calendars"],
        ["calendar"],
        *[["calendar", sub] for sub in ("list", "get", "create", "update", "delete", "upcoming")],
    ],
)
def test_every_calendar_command_has_help(command: list[str]) -> None:
    result = cli(*command, "--help")
    assert result.exit_code == 0 and "Usage:" in result.stdout


def test_calendars_lists_the_default_first() -> None:
    assert [c["name"] for c in cli_json("calendars")] == ["Calendar"]
    text = cli("calendars")
    assert text.exit_code == 0 and "Calendar (default)" in text.stdout


def test_create_get_update_delete_round_trip() -> None:
    made = cli_json(
        "calendar",
        "create",
        "--title",
        "Weekly review",
        "--start",
        "2026-03-20T09:00:00+01:00",
        "--end",
        "2026-03-20T10:00:00+01:00",
        "--location",
        "Office",
        "--rrule",
        "FREQ=WEEKLY",
    )["event"]
    assert (made["recurrence"], made["timezone"]) == ("FREQ=WEEKLY", "Europe/Rome")
    shown = cli("calendar", "get", made["id"])
    assert shown.exit_code == 0
    assert "Weekly review" in shown.stdout and "FREQ=WEEKLY" in shown.stdout
    moved = cli_json(
        "calendar",
        "update",
        made["id"],
        "--occurrence",
        "2026-03-27",
        "--start",
        "2026-03-27T15:00:00+01:00",
    )["event"]
    assert moved["id"] == f"{made['id']}@20260327T080000Z"
    assert moved["startAt"] == "2026-03-27T15:00:00+01:00"
    gone = cli_json("calendar", "delete", made["id"], "--occurrence", "2026-04-03")
    assert gone == {
        "status": "done",
        "deleted": f"{made['id']}@20260403T070000Z",
        "scope": "occurrence",
    }
    listed = cli_json("calendar", "list", "--from", "2026-03-20", "--to", "2026-04-10")
    assert [e["startAt"] for e in listed["events"]] == [
        "2026-03-20T09:00:00+01:00",
        "2026-03-27T15:00:00+01:00",
        "2026-04-10T09:00:00+02:00",
    ]
    whole = cli_json("calendar", "update", moved["id"], "--series", "--clear-location")["event"]
    assert whole["id"] == made["id"] and whole["location"] is None
    assert cli("calendar", "delete", made["id"]).stdout.startswith("Deleted event")
    assert cli_json("calendar", "list", "--from", "2026-03-20", "--to", "2026-04-10")["count"] == 0


def test_an_all_day_event_and_the_text_views() -> None:
    tomorrow = (datetime.now(ROME) + timedelta(days=1)).date().isoformat()
    cli_json("calendar", "create", "--title", "Holiday", "--start", tomorrow, "--all-day")
    cli_json("calendar", "create", "--title", "Call Marta", "--start", _soon(3))
    upcoming = cli("calendar", "upcoming", "--days", "3")
    assert upcoming.exit_code == 0
    assert "Holiday" in upcoming.stdout and "(all day)" in upcoming.stdout
    assert "Call Marta" in upcoming.stdout and "2 events upcoming until" in upcoming.stdout
    assert "times in Europe/Rome" in upcoming.stdout
    listed = cli("calendar", "list")
    assert listed.exit_code == 0 and "Call Marta" in listed.stdout


def test_upcoming_json_is_seed_000s_shape() -> None:
    cli_json("calendar", "create", "--title", "Soon", "--start", _soon(1), "--notes", "n")
    result = cli_json("calendar", "upcoming", "--timezone", "America/New_York", "--limit", "5")
    assert set(result) == {"window", "events", "count"}
    assert result["window"]["timezone"] == "America/New_York"
    (event,) = result["events"]
    assert event["notesPreview"] == "n" and event["startAt"][-6:] in ("-05:00", "-04:00")


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["calendar", "upcoming", "--timezone", "Nowhere/Land"], 2),
        (["calendar", "upcoming", "--days", "31"], 2),
        (["calendar", "list", "--from", "2026-01-01", "--to", "2027-06-01"], 2),
        (["calendar", "get", "no-such-event"], 3),
        (["calendar", "update", "no-such-event"], 2),  # nothing to change
        (["calendar", "create", "--title", "x", "--start", "2026-03-02", "--calendar", "Nope"], 3),
    ],
)
def test_errors_are_one_line_with_an_exit_code(args: list[str], code: int) -> None:
    result = cli(*args)
    assert result.exit_code == code, result.output
    assert result.stderr.startswith("error:") and len(result.stderr.strip().splitlines()) == 1
    as_json = cli(*args, "--json")
    assert as_json.exit_code == code and "error" in json.loads(as_json.stdout)


def test_demo_adds_a_week_of_events_once() -> None:
    first = cli("demo")
    assert first.exit_code == 0 and "sample events" in first.stdout
    upcoming = cli_json("calendar", "upcoming")["events"]
    titles = {e["title"] for e in upcoming}
    assert {"Team stand-up", "Weekly review", "Weekend in the hills"} <= titles
    assert any(e["allDay"] for e in upcoming)
    # The store's own default calendar holds the personal sample: no empty one beside it.
    names = [c["name"] for c in cli_json("calendars")]
    assert names == ["Calendar", "Work"]
    week = cli_json("calendar", "list", "--limit", "1000")["events"]
    assert {e["calendarName"] for e in week} == {"Calendar", "Work"}
    assert cli_json("demo")["events"] == 0


def test_an_unknown_calendar_backend_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRUITCTL_CALENDAR__BACKEND", "exchange")
    result = cli("calendar", "upcoming")
    assert result.exit_code == 78
    assert "calendar.backend: unknown backend 'exchange'" in result.stderr
