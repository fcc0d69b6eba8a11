"""Calendar time as people mean it, through the CLI and MCP: a time without an offset beside
``--timezone`` is a wall time in that zone (not the machine's), and every view names the zone
of its times the same way - UTC as ``UTC``, whichever of its aliases the host or a caller uses."""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import anyio
import pytest
from mcp.client import Client
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app
from fruitctl.domain.dates import use_zone
from fruitctl.transports.mcp import build_server

runner = CliRunner()


def cli_json(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_an_offsetless_start_is_a_wall_time_in_the_zone_named() -> None:
    # The host is in Europe/Rome (conftest): 17:00 must not be read as 17:00 in Rome.
    made = cli_json(
        "calendar", "create", "--title", "Review", "--start", "2026-03-06T17:00",
        "--timezone", "Asia/Tokyo", "--rrule", "FREQ=WEEKLY",
    )["event"]  # fmt: skip
    assert made["startAt"] == "2026-03-06T17:00:00+09:00"
    assert made["endAt"] == "2026-03-06T18:00:00+09:00"
    assert made["timezone"] == "Asia/Tokyo"
    week = cli_json("calendar", "list", "--from", "2026-03-13", "--to", "2026-03-13")
    assert made["id"] + "@20260313T080000Z" in {e["id"] for e in week["events"]}
    moved = cli_json(
        "calendar", "update", made["id"], "--start", "2026-03-06T09:00", "--end",
        "2026-03-06T09:30", "--timezone", "America/New_York", "--no-repeat",
    )["event"]  # fmt: skip
    assert moved["startAt"] == "2026-03-06T09:00:00-05:00"
    assert moved["endAt"] == "2026-03-06T09:30:00-05:00"


def test_without_a_zone_named_an_offsetless_start_is_the_persons() -> None:
    made = cli_json("calendar", "create", "--title", "Here", "--start", "2026-03-06T17:00")["event"]
    assert (made["startAt"], made["timezone"]) == ("2026-03-06T17:00:00+01:00", "Europe/Rome")


@pytest.fixture
def host_in_etc_utc(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host whose zone is spelled Etc/UTC, as /etc/localtime names it in most containers."""
    monkeypatch.setenv("TZ", "Etc/UTC")
    time.tzset()
    use_zone(None)


def _mcp(name: str, args: dict[str, Any]) -> Any:
    built = bootstrap.build()

    async def main() -> Any:
        async with Client(build_server(built.gateway)) as client:
            return await client.call_tool(name, args)

    try:
        result = anyio.run(main)
    finally:
        built.close()
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


@pytest.mark.usefixtures("host_in_etc_utc")
def test_utc_is_spelled_one_way_in_every_view(home: Path) -> None:
    made = cli_json(
        "calendar", "create", "--title", "Stand-up", "--start", "2026-03-06T09:00",
        "--timezone", "Etc/UCT",
    )["event"]  # fmt: skip
    assert made["timezone"] == "UTC"
    assert cli_json("calendar", "upcoming")["window"]["timezone"] == "UTC"
    listed = cli_json("calendar", "list", "--from", "2026-03-06")
    assert listed["window"]["timezone"] == "UTC"
    assert [e["timezone"] for e in listed["events"]] == ["UTC"]
    assert _mcp("calendar_upcoming", {"timezone": "Etc/UTC"})["window"]["timezone"] == "UTC"
    assert _mcp("query_events", {"from": "2026-03-06"})["window"]["timezone"] == "UTC"
    for view in (["calendar", "list", "--from", "2026-03-06"], ["calendar", "upcoming"]):
        shown = runner.invoke(app, view)
        assert shown.exit_code == 0, shown.output
        assert "times in UTC" in shown.stdout and "Etc/" not in shown.stdout
    got = runner.invoke(app, ["calendar", "get", made["id"]])
    assert "Zone" in got.stdout and "UTC" in got.stdout and "Etc/" not in got.stdout


def test_a_list_shows_its_times_in_the_zone_it_names() -> None:
    cli_json(
        "calendar", "create", "--title", "Call Tokyo", "--start", "2026-03-06T17:00",
        "--timezone", "Asia/Tokyo",
    )  # fmt: skip
    shown = runner.invoke(app, ["calendar", "list", "--from", "2026-03-06", "--to", "2026-03-06"])
    assert shown.exit_code == 0, shown.output
    # 17:00 in Tokyo is 09:00 in Rome, the zone the footer names.
    assert "2026-03-06 Fri 09:00-10:00" in shown.stdout
    assert "1 event from" in shown.stdout and "times in Europe/Rome" in shown.stdout


def test_when_an_event_was_made_is_in_the_persons_zone_like_every_answer() -> None:
    made = cli_json(
        "calendar", "create", "--title", "Call Tokyo", "--start", "2026-03-06T17:00",
        "--timezone", "Asia/Tokyo",
    )["event"]  # fmt: skip
    assert made["startAt"].endswith("+09:00")  # the event's own times keep its zone
    here = datetime.now(ZoneInfo("Europe/Rome")).isoformat(timespec="seconds")[19:]
    for key in ("creationDate", "modificationDate"):
        assert made[key][19:] == here, made[key]
