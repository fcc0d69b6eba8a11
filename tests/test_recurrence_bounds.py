"""Unbounded recurrence through the doors an attacker would use: an agent's create_event and a
person's CLI are refused at input with the reason (no proposal filed, nothing written), and a
poisoned series put straight into a shared CalDAV calendar is skipped as broken by
``fruitctl sync`` - counted in its report - while the other events sync."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from caldav_server import Account
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app
from fruitctl.policy.decision import Actor

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
    listed = runner.invoke(app, ["proposals", "list", "--json"])
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


def _event(uid: str, *lines: str) -> str:
    body = "\r\n".join(
        [f"UID:{uid}", f"SUMMARY:{uid}", "DTSTART:20260302T090000Z", "DURATION:PT30M", *lines]
    )
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//someone//EN\r\nBEGIN:VEVENT\r\n"
        f"{body}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )


def test_a_poisoned_shared_calendar_is_skipped_by_sync_and_the_rest_syncs(
    home: Path, caldav_account: Account
) -> None:
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(
        '[calendar]\nbackend = "caldav"\n'
        f'[caldav]\nurl = "{caldav_account.home}"\nusername = "{caldav_account.username}"\n'
    )
    caldav_account.write_items(
        caldav_account.made[1],
        {
            "a.ics": _event("seconds", "RRULE:FREQ=SECONDLY"),
            "b.ics": _event("minutes", f"RRULE:FREQ=HOURLY;BYMINUTE={EVERY_MINUTE}"),
            "c.ics": _event("dentist"),
            "d.ics": _event("standup", "RRULE:FREQ=DAILY;COUNT=3"),
        },
    )
    report = _sync(caldav_account)
    assert (report["fetched"], report["broken"]) == (4, 2)
    again = _sync(caldav_account)  # kept by ETag: not fetched, not judged again
    assert (again["fetched"], again["broken"]) == (0, 0)
    listed = runner.invoke(
        app, ["calendar", "list", "--from", "2026-03-01", "--to", "2026-03-08", "--json"]
    )
    assert listed.exit_code == 0, listed.output
    titles = sorted(e["title"] for e in json.loads(listed.stdout)["events"])
    assert titles == ["dentist", "standup", "standup", "standup"]


def _sync(account: Account) -> dict[str, object]:
    """``fruitctl sync --json`` in a process of its own, cut off at a generous deadline: a
    sync wedged by an unbounded expansion fails the test instead of hanging it."""
    env = {**os.environ, "FRUITCTL_CALDAV_PASSWORD": account.password, "FRUITCTL_IN_PROCESS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "fruitctl", "sync", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=SYNC_DEADLINE,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report
