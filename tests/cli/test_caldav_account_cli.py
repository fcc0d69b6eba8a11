"""CalDAV honesty, through the CLI on a real Radicale: a changed ``[caldav] url`` never shows an
empty mirror as the account's data, a URL without its scheme is a config error naming the fix."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from caldav_server import Account, Radicale, free_port, vtodo
from typer.testing import CliRunner

from fruitctl.cli.app import app

runner = CliRunner()
HOUR = 3600  # a staleness bound no test outlives: only the URL change can make a read sync


def point_at(home: Path, url: str, account: Account, monkeypatch: pytest.MonkeyPatch) -> None:
    """This home's reminders and calendars on ``url`` as ``account``, in this process."""
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(
        '[reminders]\nbackend = "caldav"\n[calendar]\nbackend = "caldav"\n'
        f'[caldav]\nurl = "{url}"\nusername = "{account.username}"\n'
        f"staleness_seconds = {HOUR}\n"
    )
    monkeypatch.setenv("FRUITCTL_CALDAV_PASSWORD", account.password)
    monkeypatch.setenv("FRUITCTL_IN_PROCESS", "1")


def cli_json(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _seen() -> tuple[list[str], list[str]]:
    lists = [entry["name"] for entry in cli_json("lists")]
    titles = sorted(r["title"] for r in cli_json("reminders", "list", "--all"))
    return lists, titles


def test_a_changed_url_syncs_the_new_account_before_answering(
    home: Path, radicale: Radicale, caldav_account: Account, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = caldav_account
    first.put(first.made[0] + "a.ics", vtodo("a", "SUMMARY:kept by the first account"))
    other = radicale.add_account()
    tasks = other.make_calendar("Tasks", ["VTODO"])
    other.put(tasks + "b.ics", vtodo("b", "SUMMARY:kept by the other account"))
    point_at(home, first.home, first, monkeypatch)
    assert _seen() == (["Reminders"], ["kept by the first account"])
    point_at(home, other.home, other, monkeypatch)  # within the hour the mirror is fresh for
    assert _seen() == (["Tasks"], ["kept by the other account"])
    point_at(home, first.home, first, monkeypatch)
    assert _seen() == (["Reminders"], ["kept by the first account"])


def test_a_changed_url_that_cannot_be_reached_says_so(
    home: Path, caldav_account: Account, monkeypatch: pytest.MonkeyPatch
) -> None:
    caldav_account.put(caldav_account.made[0] + "a.ics", vtodo("a", "SUMMARY:mine"))
    point_at(home, caldav_account.home, caldav_account, monkeypatch)
    assert _seen() == (["Reminders"], ["mine"])
    nowhere = f"http://127.0.0.1:{free_port()}/dav/"
    point_at(home, nowhere, caldav_account, monkeypatch)
    for command in (["lists"], ["reminders", "list", "--all"], ["calendars"]):
        refused = runner.invoke(app, [*command, "--json"])
        assert refused.exit_code == 9, refused.output  # backend_unavailable, not an empty list
        assert json.loads(refused.stdout)["error"]["code"] == "backend_unavailable"


@pytest.mark.parametrize(
    ("url", "fix"),
    [
        ("caldav.example.com/dav", "https://caldav.example.com/dav"),
        ("ftp://caldav.example.com/dav", "https://caldav.example.com/dav"),
        ("https:///dav", "https://caldav.example.com/dav"),
        ("me:s3cret@caldav.example.com/dav", "https://caldav.example.com/dav"),
    ],
)
def test_a_url_without_its_scheme_is_a_config_error_naming_the_fix(
    home: Path, caldav_account: Account, monkeypatch: pytest.MonkeyPatch, url: str, fix: str
) -> None:
    point_at(home, url, caldav_account, monkeypatch)
    refused = runner.invoke(app, ["lists", "--json"])
    assert refused.exit_code == 78, refused.output
    error = json.loads(refused.stdout)["error"]
    assert error["code"] == "config_error"
    assert "caldav.url" in error["message"] and f"'{fix}'" in error["message"]
    assert "s3cret" not in refused.output  # a password written into the URL is not repeated


def test_demo_refuses_a_remote_account_unless_told(
    home: Path, caldav_account: Account, monkeypatch: pytest.MonkeyPatch
) -> None:
    point_at(home, caldav_account.home, caldav_account, monkeypatch)
    refused = runner.invoke(app, ["demo", "--json"])
    assert refused.exit_code == 0, refused.output
    result = json.loads(refused.stdout)
    assert result["seeded"] is False and result["events"] == 0
    assert "127.0.0.1" in result["reason"] and "--into-remote" in result["reason"]
    assert caldav_account.members(caldav_account.made[0]) == []
    assert caldav_account.members(caldav_account.made[1]) == []
    shown = runner.invoke(app, ["demo"])
    assert "No sample added" in shown.stdout and "--into-remote" in shown.stdout
    told = runner.invoke(app, ["demo", "--into-remote", "--json"])
    assert json.loads(told.stdout)["seeded"] is True
    assert caldav_account.members(caldav_account.made[0]) != []


def _components(account: Account, href: str) -> set[str]:
    """The components a collection on the server takes, as its own PROPFIND says."""
    body = (
        '<?xml version="1.0"?><D:propfind xmlns:D="DAV:" '
        'xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop>'
        "<C:supported-calendar-component-set/></D:prop></D:propfind>"
    )
    with account.http() as http:
        answer = http.request("PROPFIND", href, content=body, headers={"Depth": "0"})
    answer.raise_for_status()
    return set(re.findall(r'comp name="(V[A-Z]+)"', answer.text))  # any namespace prefix


def test_an_empty_account_says_how_to_get_a_first_list_and_calendar(
    home: Path, radicale: Radicale, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = radicale.add_account()
    point_at(home, empty.home, empty, monkeypatch)
    for command, hint in (
        (["lists"], "fruitctl lists create NAME"),
        (["calendars"], "fruitctl calendars create NAME"),
    ):
        shown = runner.invoke(app, command)
        assert shown.exit_code == 0, shown.output
        assert "No " in shown.stdout and hint in shown.stdout
        assert cli_json(*command) == []  # a script still gets the plain (empty) answer
    made = runner.invoke(app, ["lists", "create", "Tasks"])
    assert made.exit_code == 0, made.output
    assert "Created the list 'Tasks'" in made.stdout
    travel = cli_json("calendars", "create", "Travel")
    assert travel["name"] == "Travel"
    assert [entry["name"] for entry in cli_json("lists")] == ["Tasks"]
    assert [entry["name"] for entry in cli_json("calendars")] == ["Travel"]
    # One MKCALENDAR each, for to-dos only and for events only (the home itself takes none).
    on_server = [_components(empty, href) for href in _collections(empty)]
    assert sorted((c for c in on_server if c), key=sorted) == [{"VEVENT"}, {"VTODO"}]
    taken = runner.invoke(app, ["lists", "create", "tasks", "--json"])
    assert taken.exit_code == 2
    assert "already exists" in json.loads(taken.stdout)["error"]["message"]


def _collections(account: Account) -> list[str]:
    """The URLs of the collections in the account's home, as its own PROPFIND lists them."""
    body = '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>'
    with account.http() as http:
        answer = http.request("PROPFIND", account.home, content=body, headers={"Depth": "1"})
    answer.raise_for_status()
    origin, home = account.home.split("/", 3)[:3], account.home.split("/", 3)[3]
    paths = re.findall(r"<(?:\w+:)?href>([^<]+)</(?:\w+:)?href>", answer.text)
    return ["/".join(origin) + p for p in paths if p.strip("/") != home.strip("/")]
