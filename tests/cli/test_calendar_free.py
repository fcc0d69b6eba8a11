"""``fruitctl calendar free`` and ``calendar conflicts``: the tools' answers as JSON and as a
person reads them, options held to the input model; and ``proposals show`` of an agent's
create lists the events it overlaps."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app
from fruitctl.domain.actors import Actor

runner = CliRunner()
LUNCH_LINE = "'Lunch' Thu 2026-03-05 12:30 - 13:30 (Calendar)"
WIDE = {"COLUMNS": "200"}  # one table row a line, as a wide terminal shows it


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args), env=WIDE)


def cli_json(*args: str) -> Any:
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _lunch() -> dict[str, Any]:
    made: dict[str, Any] = cli_json(
        "calendar", "create", "--title", "Lunch", "--start", "2026-03-05T12:30",
        "--end", "2026-03-05T13:30",
    )["event"]  # fmt: skip
    return made


def test_free_answers_the_slots_between_busy_events() -> None:
    _lunch()
    found = cli_json(
        "calendar", "free", "--from", "2026-03-05", "--to", "2026-03-05", "--min", "60",
        "--hours", "09:00-17:00",
    )  # fmt: skip
    assert [(s["start"], s["minutes"]) for s in found["slots"]] == [
        ("2026-03-05T09:00:00+01:00", 210),
        ("2026-03-05T13:30:00+01:00", 210),
    ]
    shown = cli("calendar", "free", "--from", "2026-03-05", "--to", "2026-03-05",
                "--hours", "09:00-17:00")  # fmt: skip
    assert shown.exit_code == 0, shown.output
    assert "2026-03-05 Thu 09:00-12:30" in shown.output and "3h30" in shown.output
    assert "2 free slots from 2026-03-05T00:00:00+01:00" in shown.output
    weekend = cli_json("calendar", "free", "--from", "2026-03-07", "--to", "2026-03-08",
                       "--weekday", "mon", "--weekday", "fri")  # fmt: skip
    assert weekend["slots"] == []


def test_conflicts_name_the_events_the_time_overlaps() -> None:
    lunch = _lunch()
    found = cli_json("calendar", "conflicts", "--start", "2026-03-05T13:00",
                     "--end", "2026-03-05T14:00")  # fmt: skip
    assert [e["id"] for e in found["conflicts"]] == [lunch["id"]]
    shown = cli("calendar", "conflicts", "--start", "2026-03-05T13:00", "--end", "2026-03-05T14:00")
    assert "Lunch" in shown.output and "1 conflict with 2026-03-05 Thu 13:00-14:00" in shown.output
    clear = cli("calendar", "conflicts", "--start", "2026-03-05T15:00", "--end", "2026-03-05T16:00")
    assert "No conflicts: 2026-03-05 Thu 15:00-16:00 is free." in clear.output


def test_bad_options_are_refused_naming_them() -> None:
    too_short = cli("calendar", "free", "--min", "0")
    assert too_short.exit_code == 2 and "--min" in too_short.output
    hours = cli("calendar", "free", "--hours", "9 to 5", "--json")
    assert hours.exit_code != 0
    assert json.loads(hours.stdout)["error"]["code"] == "invalid_params"


def test_an_agents_create_shows_what_it_overlaps() -> None:
    _lunch()
    built = bootstrap.build()
    try:
        asked = {"title": "Call", "startAt": "2026-03-05T13:00:00+01:00"}
        pending = built.gateway.invoke("create_event", asked, Actor("agent", "claude")).output
    finally:
        built.close()
    shown = cli("proposals", "show", pending["proposalId"])
    assert shown.exit_code == 0, shown.output
    assert "overlaps" in shown.output
    assert LUNCH_LINE in shown.output
    as_json = cli_json("proposals", "show", pending["proposalId"])
    row = {"target": "new event", "field": "overlaps", "before": None, "after": LUNCH_LINE}
    assert row in as_json["diff"]
