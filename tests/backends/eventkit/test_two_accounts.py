"""Two accounts on one Mac: "Errands" in iCloud and in Google, "Calendar" in both. Every door
says which account a list or calendar is in; a name two accounts share is refused with the
choices (no write lands anywhere), ``Account/Name`` or an id picks one; an allowlist naming a
shared name allows neither. The real CLI, gateway, MCP server and HTTP API over the fake of
``EventKitPort`` (and, for the account name itself, over the fake PyObjC framework)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from backends.eventkit.fake import FakeEventKit
from backends.eventkit.fake_framework import FakeCalendar
from backends.eventkit.fake_mac import EVENTS, REMINDERS, granted_mac
from mcp.client import Client
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.backends import eventkit
from fruitctl.backends.eventkit.adapter import EventKitAdapter
from fruitctl.backends.eventkit.calendars import EventKitCalendars
from fruitctl.backends.eventkit.permission import Access, Responsible
from fruitctl.backends.eventkit.reminders import EventKitReminders
from fruitctl.backends.eventkit.tagstore import TagStore
from fruitctl.cli.app import app as cli_app
from fruitctl.domain.actors import Actor
from fruitctl.transports.http.app import create_app
from fruitctl.transports.http.tokens import TokenStore, secrets_dir
from fruitctl.transports.mcp import build_server

AGENT = Actor("agent", "claude")
PERSON = Actor("human", "me")
ITERM = Responsible("iTerm", "/Applications/iTerm.app", "terminal")
SHARED = "More than one list is called 'Errands': iCloud/Errands, Google/Errands."
runner = CliRunner()


@pytest.fixture
def mac(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeEventKit:
    fake = FakeEventKit()
    fake.add_calendar("reminder", "Reminders", default=True)
    fake.add_calendar("reminder", "Errands")
    fake.add_calendar("reminder", "Errands", source="Google")
    fake.add_calendar("event", "Calendar", default=True)
    fake.add_calendar("event", "Calendar", source="Google")
    monkeypatch.setattr(eventkit, "available", lambda: True)
    monkeypatch.setattr(eventkit, "shared_port", lambda: fake)
    monkeypatch.setattr(
        eventkit,
        "shared_access",
        lambda may_prompt: Access(fake, may_prompt=may_prompt, who=lambda: ITERM),
    )
    monkeypatch.setenv("FRUITCTL_EVENTKIT__REMINDERS_STORE", str(tmp_path / "no-store"))
    return fake


@pytest.fixture
def app(mac: FakeEventKit) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


def list_id(fake: FakeEventKit, name: str, source: str) -> str:
    return next(
        c.id for c in fake.lists["reminder"].values() if (c.title, c.source) == (name, source)
    )


def where_reminders_are(fake: FakeEventKit) -> dict[str, str]:
    """Each reminder's title and the account of its list."""
    lists = fake.lists["reminder"]
    return {r.title: str(lists[r.calendar_id].source) for r in fake.reminders.values()}


def where_events_are(fake: FakeEventKit) -> dict[str, str]:
    calendars = fake.lists["event"]
    return {e.title: str(calendars[e.calendar_id].source) for e in fake.events_by_id.values()}


def create(title: str, selector: Any) -> dict[str, Any]:
    return {"reminders": [{"title": title, "list": selector}]}


def event(title: str, calendar: str) -> dict[str, Any]:
    return {"title": title, "startAt": "2026-03-02T09:00:00+01:00", "calendar": calendar}


# -- every answer says its account -----------------------------------------------------------


def test_lists_and_calendars_carry_their_account(app: bootstrap.App) -> None:
    lists = app.call("get_lists", {})
    assert [(lst["account"], lst["name"]) for lst in lists] == [
        ("iCloud", "Reminders"),
        ("iCloud", "Errands"),
        ("Google", "Errands"),
    ]
    calendars = app.call("list_calendars", {})
    assert [(c["account"], c["name"]) for c in calendars] == [
        ("iCloud", "Calendar"),
        ("Google", "Calendar"),
    ]


def test_the_account_is_the_sources_title_as_pyobjc_answers_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The real adapter over the fake framework: calendar.source().title(), per calendar.
    mac = granted_mac(monkeypatch)
    mac.calendars[REMINDERS].append(FakeCalendar("g1", "Reminders", REMINDERS, account="Google"))
    mac.calendars[EVENTS].append(FakeCalendar("g2", "Home", EVENTS, account="Exchange"))
    port = EventKitAdapter()
    access = Access(port, may_prompt=False, who=lambda: ITERM)
    lists = EventKitReminders(port, access, TagStore(tmp_path / "none")).lists(with_counts=False)
    calendars = EventKitCalendars(port, access).calendars()
    assert {(lst.account, lst.id) for lst in lists} == {("iCloud", "list-1"), ("Google", "g1")}
    assert {(c.account, c.id) for c in calendars} == {("iCloud", "calendar-1"), ("Exchange", "g2")}


# -- a shared name is refused; Account/Name or an id picks one -------------------------------


def test_a_shared_list_name_writes_nowhere(app: bootstrap.App, mac: FakeEventKit) -> None:
    refused = app.gateway.invoke("create_reminders", create("Stamps", {"name": "errands"}), PERSON)
    assert refused.error_code == "ambiguous"
    assert refused.error.startswith(SHARED.replace("'Errands'", "'errands'"))
    assert mac.reminders == {}
    asked = app.gateway.invoke("query_reminders", {"list": {"name": "Errands"}}, PERSON)
    assert asked.error_code == "ambiguous"  # a read of the wrong list is as wrong


def test_account_slash_name_or_an_id_picks_one(app: bootstrap.App, mac: FakeEventKit) -> None:
    app.call("create_reminders", create("Stamps", {"name": "Google/Errands"}))
    app.call("create_reminders", create("Milk", "icloud/errands"))  # a bare string, any case
    app.call("create_reminders", create("Bread", {"id": list_id(mac, "Errands", "Google")}))
    assert where_reminders_are(mac) == {"Stamps": "Google", "Milk": "iCloud", "Bread": "Google"}
    found = app.call("query_reminders", {"list": {"name": "Google/Errands"}})
    assert sorted(r["title"] for r in found) == ["Bread", "Stamps"]


def test_a_move_to_a_shared_name_is_refused(app: bootstrap.App, mac: FakeEventKit) -> None:
    (made,) = app.call("create_reminders", create("Stamps", "iCloud/Errands"))
    moved = app.gateway.invoke(
        "update_reminders", {"reminders": [{"id": made["id"], "list": "Errands"}]}, PERSON
    )
    assert moved.error_code == "ambiguous"
    app.call("update_reminders", {"reminders": [{"id": made["id"], "list": "Google/Errands"}]})
    assert where_reminders_are(mac) == {"Stamps": "Google"}


def test_a_shared_calendar_name_writes_nowhere(app: bootstrap.App, mac: FakeEventKit) -> None:
    refused = app.gateway.invoke("create_event", event("Dentist", "Calendar"), PERSON)
    assert refused.error_code == "ambiguous"
    assert "iCloud/Calendar, Google/Calendar" in str(refused.error)
    assert mac.events_by_id == {}
    app.call("create_event", event("Dentist", "Google/Calendar"))
    assert where_events_are(mac) == {"Dentist": "Google"}
    asked = app.gateway.invoke(
        "query_events", {"from": "2026-03-01", "to": "2026-03-31", "calendar": "calendar"}, PERSON
    )
    assert asked.error_code == "ambiguous"


def test_an_agents_proposal_naming_a_shared_list_is_refused_when_filed(
    app: bootstrap.App,
) -> None:
    refused = app.gateway.invoke("create_reminders", create("Stamps", "Errands"), AGENT)
    assert refused.error_code == "ambiguous"
    assert app.approvals.recent() == []
    pending = app.gateway.invoke("create_reminders", create("Stamps", "Google/Errands"), AGENT)
    assert pending.success and pending.output["status"] == "pending", pending.error


def test_an_approved_write_lands_in_the_account_it_named(
    app: bootstrap.App, mac: FakeEventKit
) -> None:
    pending = app.gateway.invoke("create_event", event("Flight", "Google/Calendar"), AGENT)
    assert pending.success, pending.error
    app.gateway.decide(pending.output["proposalId"], "approve", PERSON)
    assert where_events_are(mac) == {"Flight": "Google"}


# -- allowlists never guess ------------------------------------------------------------------


def test_an_allowlist_naming_a_shared_list_refuses_rather_than_guesses(
    app: bootstrap.App, mac: FakeEventKit
) -> None:
    app.allowlists.set("allowlist.reminders.lists", ["Errands"], "human:me")
    for selector in ("iCloud/Errands", "Google/Errands"):
        refused = app.gateway.invoke("create_reminders", create("Stamps", selector), AGENT)
        assert refused.error_code == "ambiguous", refused.error
        assert "allowlist.reminders.lists names 'Errands'" in str(refused.error)
    assert app.approvals.recent() == []
    app.allowlists.set("allowlist.reminders.lists", ["iCloud/Errands"], "human:me")
    allowed = app.gateway.invoke("create_reminders", create("Stamps", "iCloud/Errands"), AGENT)
    assert allowed.success and allowed.output["status"] == "pending", allowed.error
    other = app.gateway.invoke("create_reminders", create("Stamps", "Google/Errands"), AGENT)
    assert (other.error_code, other.error) == (
        "list_not_allowed",
        "Writes to list 'Google/Errands' are not permitted.",
    )


def test_a_calendar_allowlist_entry_names_one_account(
    app: bootstrap.App, mac: FakeEventKit
) -> None:
    app.allowlists.set("allowlist.calendars", ["calendar"], "human:me")
    refused = app.gateway.invoke("create_event", event("Flight", "Google/Calendar"), AGENT)
    assert refused.error_code == "ambiguous"
    default = app.gateway.invoke(  # into the default calendar, iCloud's: the entry is unclear
        "create_event", {"title": "Flight", "startAt": "2026-03-02"}, AGENT
    )
    assert default.error_code == "ambiguous"
    app.allowlists.set("allowlist.calendars", ["Google/Calendar"], "human:me")
    allowed = app.gateway.invoke("create_event", event("Flight", "Google/Calendar"), AGENT)
    assert allowed.success, allowed.error
    other = app.gateway.invoke("create_event", event("Flight", "iCloud/Calendar"), AGENT)
    assert other.error_code == "calendar_not_allowed"
    assert other.error == "Writes to calendar 'iCloud/Calendar' are not permitted."


# -- the doors -------------------------------------------------------------------------------


def cli(*args: str) -> Any:
    return runner.invoke(cli_app, list(args))


def test_the_cli_shows_accounts_and_refuses_a_shared_name(mac: FakeEventKit) -> None:
    shown = cli("lists")
    assert shown.exit_code == 0, shown.output
    assert "ACCOUNT" in shown.stdout and "Google" in shown.stdout
    calendars = cli("calendars", "--json")
    assert [c["account"] for c in json.loads(calendars.stdout)] == ["iCloud", "Google"]
    refused = cli("reminders", "add", "--title", "Stamps", "--list", "Errands")
    assert refused.exit_code == 2
    assert SHARED in " ".join(refused.output.split())
    added = cli("reminders", "add", "--title", "Stamps", "--list", "Google/Errands", "--json")
    assert added.exit_code == 0, added.output
    assert where_reminders_are(mac) == {"Stamps": "Google"}


def test_mcp_says_the_account_and_refuses_a_shared_name(app: bootstrap.App) -> None:
    async def main() -> tuple[Any, Any]:
        async with Client(build_server(app.gateway)) as client:
            lists = await client.call_tool("get_lists", {})
            refused = await client.call_tool("create_reminders", create("Stamps", "Errands"))
            return lists, refused

    lists, refused = anyio.run(main)
    assert {lst["account"] for lst in json.loads(lists.content[0].text)} == {"iCloud", "Google"}
    assert refused.is_error and refused.content[0].text.startswith(SHARED)


def test_http_says_the_account_and_refuses_a_shared_name(app: bootstrap.App) -> None:
    tokens = TokenStore(secrets_dir(app))
    token = tokens.issue("admin", 3600, "alice")[0]
    api = create_app(app, tokens=tokens)

    async def main() -> tuple[httpx.Response, httpx.Response]:
        transport = httpx.ASGITransport(app=api)
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", headers=headers
        ) as client:
            lists = await client.get("/reminders/lists")
            refused = await client.post("/reminders", json={"title": "Stamps", "list": "Errands"})
            return lists, refused

    lists, refused = anyio.run(main)
    assert lists.status_code == 200
    assert [lst["account"] for lst in lists.json()] == ["iCloud", "iCloud", "Google"]
    assert refused.status_code == 409, refused.text
    error = refused.json()["error"]
    assert error["code"] == "AMBIGUOUS"
    assert error["details"]["choices"] == ["iCloud/Errands", "Google/Errands"]
