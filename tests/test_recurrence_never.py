"""A repeat rule that never happens, through the doors an attacker would use: an agent's
create_event and a person's CLI are refused at input with the reason (no proposal filed,
nothing written), and such a series put straight into a shared CalDAV calendar is skipped as
broken by ``fruitctl sync`` - counted in its report - while the other events sync. Without the
judgement, each expansion of one looks for its next instance up to the year 9999."""

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
START = "2026-03-02T09:00:00+01:00"  # a Monday
# `fruitctl sync` on these objects ends in well under a second; without the judgement each
# read of each of them walks dateutil to the year 9999 (seconds each): a generous cut-off.
SYNC_DEADLINE = 120
# Radicale itself walks each such rule to the year 9999 once, when it first indexes the items
# (vobject's rruleset: seconds); fruitctl's requests wait for it up to this.
RADICALE_FIRST_ANSWER = 60


@pytest.fixture
def app_(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


@pytest.mark.parametrize(
    ("rule", "said"),
    [
        ("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30", "no date matches BYMONTH=2;BYMONTHDAY=30"),
        ("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=31", "no date matches BYMONTH=2;BYMONTHDAY=31"),
        ("FREQ=HOURLY;BYSETPOS=2", "BYSETPOS=2 asks for more instances than any hour holds"),
    ],
)
def test_an_agents_series_that_never_happens_is_refused_and_nothing_is_filed(
    app_: bootstrap.App, rule: str, said: str
) -> None:
    args = {"title": "Ping", "startAt": START, "recurrence": rule}
    result = app_.gateway.invoke("create_event", args, AGENT)
    assert not result.success and result.error is not None
    assert result.error_code == "invalid_params"
    assert f"it never happens: {said}" in result.error
    listed = runner.invoke(app, ["proposals", "list", "--status", "all", "--json"])
    assert listed.exit_code == 0 and json.loads(listed.stdout) == []


def test_the_cli_refuses_it_with_exit_2_and_the_reason() -> None:
    args = ["calendar", "create", "--title", "Ping", "--start", START]
    done = runner.invoke(app, [*args, "--rrule", "FREQ=DAILY;BYMONTH=1;BYYEARDAY=366"])
    assert done.exit_code == 2, done.output
    assert "it never happens: no date matches BYMONTH=1;BYYEARDAY=366 in any year" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    listed = runner.invoke(app, ["calendar", "list", "--from", "2026-03-01", "--json"])
    assert json.loads(listed.stdout)["events"] == []


@pytest.mark.slow
@pytest.mark.process
def test_a_shared_calendar_with_series_that_never_happen_syncs_the_rest(
    home: Path, caldav_account: Account
) -> None:
    calendar_on(home, caldav_account, RADICALE_FIRST_ANSWER)
    caldav_account.write_items(
        caldav_account.made[1],
        {
            # One kind of "never" (the others are held to dateutil in tests/domain): Radicale
            # itself walks each such rule to the year 9999 when it is stored and asked for.
            "a.ics": vevent("feb30", "RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30"),
            "d.ics": vevent("dentist"),
            "e.ics": vevent("standup", "RRULE:FREQ=DAILY;COUNT=3"),
            "f.ics": vevent("leap", "RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29"),
        },
    )
    report = sync_in_a_process(caldav_account, SYNC_DEADLINE)
    assert (report["fetched"], report["broken"]) == (4, 1)
    listed = runner.invoke(
        app, ["calendar", "list", "--from", "2026-03-01", "--to", "2026-03-08", "--json"]
    )
    assert listed.exit_code == 0, listed.output
    titles = sorted(e["title"] for e in json.loads(listed.stdout)["events"])
    assert titles == ["dentist", "leap", "standup", "standup", "standup"]  # leap: its start
    leap = runner.invoke(
        app, ["calendar", "list", "--from", "2028-02-28", "--to", "2028-03-02", "--json"]
    )
    assert [e["title"] for e in json.loads(leap.stdout)["events"]] == ["leap"]
