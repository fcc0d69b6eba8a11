"""Unbounded recurrence through the doors an attacker would use: an agent's create_event and a
person's CLI are refused at input with the reason (no proposal filed, nothing written), and a
poisoned series put straight into a shared CalDAV calendar is skipped as broken by
``fruitctl sync`` - counted in its report - while the other events sync."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from caldav_server import Account
from foreign_calendar import calendar_on, sync_in_a_process, vevent
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app
from fruitctl.domain.actors import Actor

AGENT = Actor("agent", "claude")
runner = CliRunner()
EVERY_MINUTE = ",".join(str(m) for m in range(60))
# `fruitctl sync` on these objects ends in well under a second; a test machine may be slow,
# but without the bounds the first one alone expands 31 million occurrences (minutes, GBs).
SYNC_DEADLINE = 120


@pytest.fixture
def app_(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


@pytest.mark.parametrize("rule", ["FREQ=SECONDLY", "FREQ=MINUTELY;COUNT=10"])
def test_an_agents_too_fine_series_is_refused_and_nothing_is_filed(
    app_: bootstrap.App, rule: str
) -> None:
    args = {"title": "Ping", "startAt": "2026-03-02T09:00:00+01:00", "recurrence": rule}
    result = app_.gateway.invoke("create_event", args, AGENT)
    assert not result.success and result.error is not None
    assert result.error_code == "invalid_params"
    assert "at most hourly" in result.error and rule.split(";")[0] in result.error
    listed = runner.invoke(app, ["proposals", "list", "--status", "all", "--json"])
    assert listed.exit_code == 0 and json.loads(listed.stdout) == []


def test_an_hourly_rule_with_sixty_minutes_is_refused_by_arithmetic(app_: bootstrap.App) -> None:
    rule = f"FREQ=HOURLY;BYMINUTE={EVERY_MINUTE}"
    args = {"title": "Ping", "startAt": "2026-03-02T09:00:00+01:00", "recurrence": rule}
    result = app_.gateway.invoke("create_event", args, AGENT)
    assert result.error is not None and result.error_code == "invalid_params"
    assert "1440 times a day" in result.error


@pytest.mark.parametrize(
    ("rule", "said"),
    [("FREQ=MINUTELY", "every minute"), (f"FREQ=HOURLY;BYMINUTE={EVERY_MINUTE}", "1440 times")],
)
def test_the_cli_refuses_it_with_exit_2_and_the_reason(rule: str, said: str) -> None:
    args = ["calendar", "create", "--title", "Ping", "--start", "2026-03-02T09:00:00+01:00"]
    done = runner.invoke(app, [*args, "--rrule", rule])
    assert done.exit_code == 2, done.output
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1
    listed = runner.invoke(app, ["calendar", "list", "--from", "2026-03-01", "--json"])
    assert json.loads(listed.stdout)["events"] == []


def test_a_poisoned_shared_calendar_is_skipped_by_sync_and_the_rest_syncs(
    home: Path, caldav_account: Account
) -> None:
    calendar_on(home, caldav_account)
    caldav_account.write_items(
        caldav_account.made[1],
        {
            "a.ics": vevent("seconds", "RRULE:FREQ=SECONDLY"),
            "b.ics": vevent("minutes", f"RRULE:FREQ=HOURLY;BYMINUTE={EVERY_MINUTE}"),
            "c.ics": vevent("dentist"),
            "d.ics": vevent("standup", "RRULE:FREQ=DAILY;COUNT=3"),
        },
    )
    report = sync_in_a_process(caldav_account, SYNC_DEADLINE)
    assert (report["fetched"], report["broken"]) == (4, 2)
    again = sync_in_a_process(
        caldav_account, SYNC_DEADLINE
    )  # kept by ETag: not fetched, not judged again
    assert (again["fetched"], again["broken"]) == (0, 0)
    listed = runner.invoke(
        app, ["calendar", "list", "--from", "2026-03-01", "--to", "2026-03-08", "--json"]
    )
    assert listed.exit_code == 0, listed.output
    titles = sorted(e["title"] for e in json.loads(listed.stdout)["events"])
    assert titles == ["dentist", "standup", "standup", "standup"]
