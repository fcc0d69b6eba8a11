"""``fruitctl reminders add|update|complete`` and ``fruitctl calendar create|update`` with a
repeat rule, a start and alerts: the options reach the tools, ``get`` says them in words, and
completing a repeating reminder moves it on."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from fruitctl.cli.app import app

runner = CliRunner()


def cli_json(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _bins() -> dict[str, Any]:
    (made,) = cli_json(
        "reminders", "add", "--title", "bins", "--due", "2026-03-02T09:00:00+01:00",
        "--rrule", "FREQ=WEEKLY;BYDAY=MO", "--start", "2026-03-01T18:00:00+01:00",
        "--alert", "15", "--alert-at", "2026-03-01T20:00:00+01:00",
    )["created"]  # fmt: skip
    return dict(made)


def test_add_writes_the_rule_the_start_and_the_alerts() -> None:
    made = _bins()
    assert made["recurrence"] == "FREQ=WEEKLY;BYDAY=MO"
    assert made["startDate"] == "2026-03-01T18:00:00+01:00"
    assert made["alarms"] == [{"minutesBefore": 15}, {"at": "2026-03-01T20:00:00+01:00"}]
    shown = runner.invoke(app, ["reminders", "get", made["id"]])
    assert shown.exit_code == 0, shown.output
    assert "every Monday" in shown.stdout
    assert "alert 15 minutes before and alert at Sun 2026-03-01 20:00" in shown.stdout


def test_complete_moves_a_repeating_reminder_on() -> None:
    made = _bins()
    runner.invoke(app, ["reminders", "complete", made["id"]])
    moved = cli_json("reminders", "get", made["id"])
    assert (moved["isCompleted"], moved["dueDate"]) == (False, "2026-03-09T09:00:00+01:00")
    assert moved["alarms"][1] == {"at": "2026-03-08T20:00:00+01:00"}
    (done,) = cli_json("reminders", "list", "--all", "--status", "completed")
    assert (done["title"], done["dueDate"]) == ("bins", "2026-03-02T09:00:00+01:00")


def test_update_changes_and_clears_them() -> None:
    made = _bins()
    (changed,) = cli_json("reminders", "update", made["id"], "--alert", "60", "--alert", "5")[
        "updated"
    ]
    assert changed["alarms"] == [{"minutesBefore": 60}, {"minutesBefore": 5}]
    assert changed["recurrence"] == "FREQ=WEEKLY;BYDAY=MO"  # untouched
    (cleared,) = cli_json(
        "reminders", "update", made["id"], "--no-repeat", "--clear-start", "--clear-alerts"
    )["updated"]
    assert (cleared["recurrence"], cleared["startDate"], cleared["alarms"]) == (None, None, [])


def test_an_alert_out_of_bounds_is_refused_naming_the_option() -> None:
    result = runner.invoke(app, ["reminders", "add", "--title", "x", "--alert", "99999"])
    assert result.exit_code != 0
    assert "--alert" in result.output


def test_an_event_gets_alerts_and_loses_them() -> None:
    made = cli_json(
        "calendar", "create", "--title", "stand-up", "--start", "2026-03-02T09:00:00+01:00",
        "--alert", "10",
    )["event"]  # fmt: skip
    assert made["alarms"] == [{"minutesBefore": 10}]
    shown = runner.invoke(app, ["calendar", "get", made["id"]])
    assert "alert 10 minutes before" in shown.stdout
    changed = cli_json("calendar", "update", made["id"], "--clear-alerts")["event"]
    assert changed["alarms"] == []
