"""Accounts on a real Radicale, through the CLI and the gateway: lists and calendars say the
account they are in (the server's host), two calendars of one name on the server are refused
by that name - with their ids to choose from, since ``Account/Name`` reads alike for both - and
picked by id; an allowlist naming them allows neither. Two task lists of one name stay apart
in the mirror ("Reminders (2)"), so naming one is never ambiguous."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from caldav_server import Account
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app as cli_app
from fruitctl.domain.actors import Actor

runner = CliRunner()
HOUR = 3600  # a staleness bound no test outlives: the mirror syncs when a write asks it to
AGENT = Actor("agent", "claude")


@pytest.fixture
def account(home: Path, caldav_account: Account, monkeypatch: pytest.MonkeyPatch) -> Account:
    """This home on a Radicale account holding 'Reminders' and two calendars 'Calendar'."""
    caldav_account.make_calendar("Calendar", ["VEVENT"])
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(
        '[reminders]\nbackend = "caldav"\n[calendar]\nbackend = "caldav"\n'
        f'[caldav]\nurl = "{caldav_account.home}"\nusername = "{caldav_account.username}"\n'
        f"staleness_seconds = {HOUR}\n"
    )
    monkeypatch.setenv("FRUITCTL_CALDAV_PASSWORD", caldav_account.password)
    monkeypatch.setenv("FRUITCTL_IN_PROCESS", "1")
    return caldav_account


def host(account: Account) -> str:
    return str(urlsplit(account.home).hostname)


def cli(*args: str) -> Any:
    return runner.invoke(cli_app, list(args))


def cli_json(*args: str) -> Any:
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_lists_and_calendars_say_the_servers_host(account: Account) -> None:
    lists = cli_json("lists")
    assert [(lst["account"], lst["name"]) for lst in lists] == [(host(account), "Reminders")]
    calendars = cli_json("calendars")
    assert [(c["account"], c["name"]) for c in calendars] == [(host(account), "Calendar")] * 2
    shown = cli("calendars")
    assert shown.exit_code == 0 and "ACCOUNT" in shown.stdout and host(account) in shown.stdout


def test_two_calendars_of_one_name_are_chosen_by_id(account: Account) -> None:
    ids = [c["id"] for c in cli_json("calendars")]
    start = ("--title", "Dentist", "--start", "2026-03-02T09:00:00+01:00")
    refused = cli("calendar", "create", *start, "--calendar", "Calendar")
    assert refused.exit_code == 2, refused.output
    said = " ".join(refused.output.split())
    assert "More than one calendar is called 'Calendar'" in said
    assert all(f"(id {calendar_id})" in said for calendar_id in ids)
    qualified = cli("calendar", "create", *start, "--calendar", f"{host(account)}/Calendar")
    assert qualified.exit_code == 2  # Account/Name reads alike for both: only an id tells
    assert [len(account.members(url)) for url in account.made[1:]] == [0, 0]
    made = cli_json("calendar", "create", *start, "--calendar", ids[1])
    assert made["event"]["calendarId"] == ids[1]
    assert sorted(len(account.members(url)) for url in account.made[1:]) == [0, 1]


def test_two_task_lists_of_one_name_stay_apart(account: Account) -> None:
    account.make_calendar("Reminders", ["VTODO"])
    assert cli("sync").exit_code == 0
    # Which of the two gets the suffix is the server's order of them; each has a name.
    assert sorted(lst["name"] for lst in cli_json("lists")) == ["Reminders", "Reminders (2)"]
    for name in ("Reminders (2)", "Reminders"):
        made = cli_json("reminders", "add", "--title", name, "--list", name)
        assert [r["listName"] for r in made["created"]] == [name]
    assert [len(account.members(url)) for url in (account.made[0], account.made[-1])] == [1, 1]


@pytest.fixture
def app(account: Account) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def test_an_allowlist_naming_two_calendars_allows_neither(
    app: bootstrap.App, account: Account
) -> None:
    first, second = (c["id"] for c in app.call("list_calendars", {}))
    app.allowlists.set("allowlist.calendars", ["Calendar"], "human:me")
    event = {"title": "Flight", "startAt": "2026-03-02"}
    for calendar_id in (first, second):
        refused = app.gateway.invoke("create_event", {**event, "calendar": calendar_id}, AGENT)
        assert refused.error_code == "ambiguous", refused.error
        assert "allowlist.calendars names 'Calendar'" in str(refused.error)
    assert app.approvals.recent() == []
