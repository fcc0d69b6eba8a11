"""Every date-time in one zone - [server] timezone, else the host's - through the CLI on a real
store: answers written with any offset compare in time order, the store follows a change of
zone, and the SQL pushdown still agrees with evaluation in memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fruitctl.cli.app import app

runner = CliRunner()


def cli_json(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _fill() -> None:
    for title, due in (
        ("new york evening", "2026-03-01T18:00:00-05:00"),  # 2nd 00:00 in Rome
        ("kolkata morning", "2026-03-01T09:30:00+05:30"),  # 1st 05:00 in Rome
        ("utc noon", "2026-03-01T12:00:00Z"),  # 1st 13:00 in Rome
        ("a day", "2026-03-01"),
    ):
        cli_json("reminders", "add", "--title", title, "--due", due)


def _dues() -> dict[str, str]:
    return {r["title"]: r["dueDate"] for r in cli_json("reminders", "list")}


def test_answers_are_in_the_host_zone_and_sort_as_text() -> None:
    _fill()
    assert _dues() == {
        "new york evening": "2026-03-02T00:00:00+01:00",
        "kolkata morning": "2026-03-01T05:00:00+01:00",
        "utc noon": "2026-03-01T13:00:00+01:00",
        "a day": "2026-03-01",
    }
    ordered = cli_json("reminders", "list", "--query", "sort_by(@, &dueDate)[].title")
    assert ordered == ["a day", "kolkata morning", "utc noon", "new york evening"]
    later = cli_json("reminders", "list", "--query", "[?dueDate > '2026-03-01T12:00'].title")
    assert sorted(later) == ["new york evening", "utc noon"]
    for item in cli_json("reminders", "list"):
        assert item["creationDate"].endswith("+01:00")


@pytest.mark.slow
def test_a_configured_zone_rewrites_the_store_once(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill()
    before = cli_json("reminders", "list", "--sort", "dueDate")
    monkeypatch.setenv("FRUITCTL_SERVER__TIMEZONE", "America/New_York")
    after = cli_json("reminders", "list", "--sort", "dueDate")
    assert {r["id"] for r in after} == {r["id"] for r in before}
    assert {r["title"]: r["dueDate"] for r in after} == {
        "new york evening": "2026-03-01T18:00:00-05:00",
        "kolkata morning": "2026-02-28T23:00:00-05:00",
        "utc noon": "2026-03-01T07:00:00-05:00",
        "a day": "2026-03-01",
    }
    # A date's place moves with the zone: New York's midnight of the 1st is after 23:00 on the
    # 28th. The SQL order, a JMESPath sort and a filter that runs in SQL all agree.
    assert [r["title"] for r in after] == [
        "kolkata morning",
        "a day",
        "utc noon",
        "new york evening",
    ]
    by_text = cli_json("reminders", "list", "--query", "sort_by([?dueDate], &dueDate)[].title")
    assert by_text == [r["title"] for r in after]
    first = cli_json("reminders", "list", "--query", "[?dueDate < '2026-03-01'].title")
    assert first == ["kolkata morning"]
    for item in after:
        assert item["creationDate"].endswith(("-05:00", "-04:00"))
    # Back in the host zone, the store follows again.
    monkeypatch.delenv("FRUITCTL_SERVER__TIMEZONE")
    assert cli_json("reminders", "list", "--sort", "dueDate") == before


def test_an_unknown_zone_is_a_configuration_error(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[server]\ntimezone = "Mars/Olympus"\n')
    result = runner.invoke(app, ["lists"])
    assert result.exit_code == 78
    assert "server.timezone" in result.stderr and "Mars/Olympus" in result.stderr
    assert "Traceback" not in result.stderr
