"""A Mac user's fruitctl, end to end on Linux: ``backend = "auto"`` picks Apple Reminders and
Calendar when EventKit is there, and everything above the one adapter is the real thing - the
CLI, the gateway and its policy, approvals, the doctor - over the thin fake of ``EventKitPort``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from backends.eventkit.fake import FakeEventKit
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.backends import eventkit
from fruitctl.backends.eventkit.permission import Access, Responsible
from fruitctl.backends.eventkit.values import DENIED, NOT_DETERMINED
from fruitctl.cli.app import app as cli_app
from fruitctl.domain.actors import Actor

AGENT = Actor("agent", "claude")
ITERM = Responsible("iTerm", "/Applications/iTerm.app", "terminal")
runner = CliRunner()


def cli(*args: str) -> Any:
    return runner.invoke(cli_app, list(args))


@pytest.fixture
def mac(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeEventKit:
    """This process as a Mac with PyObjC: the fake is the one warm store, iTerm started us."""
    fake = FakeEventKit()
    fake.add_calendar("reminder", "Reminders", default=True)
    fake.add_calendar("reminder", "Errands")
    fake.add_calendar("event", "Home", default=True)
    monkeypatch.setattr(eventkit, "available", lambda: True)
    monkeypatch.setattr(eventkit, "shared_port", lambda: fake)
    monkeypatch.setattr(
        eventkit,
        "shared_access",
        lambda may_prompt: Access(fake, may_prompt=may_prompt, who=lambda: ITERM),
    )
    # No Reminders database there: tags cannot be read, and fruitctl must say so.
    monkeypatch.setenv("FRUITCTL_EVENTKIT__REMINDERS_STORE", str(tmp_path / "no-store"))
    return fake


def titles(fake: FakeEventKit) -> list[str]:
    return sorted(r.title for r in fake.reminders.values())


def test_auto_serves_the_persons_own_reminders(mac: FakeEventKit) -> None:
    added = cli("reminders", "add", "--title", "Call mum", "--list", "Errands", "--json")
    assert added.exit_code == 0, added.output
    assert titles(mac) == ["Call mum"]
    listed = cli("reminders", "list", "--list", "Errands", "--json")
    assert listed.exit_code == 0, listed.output
    assert "Call mum" in listed.stdout
    info = json.loads(cli("info", "--json").stdout)
    assert info["backends"] == {"reminders": "eventkit", "calendar": "eventkit"}
    assert info["permissions"] == {"reminders": "authorized", "calendar": "authorized"}
    assert info["tags"]["readable"] is False and info["tags"]["reason"]


def test_an_agents_write_lands_in_apples_store_only_once_approved(mac: FakeEventKit) -> None:
    app = bootstrap.build()
    try:
        args = {"reminders": [{"title": "Stamps", "list": {"name": "Errands"}}]}
        pending = app.gateway.invoke("create_reminders", args, AGENT)
        assert pending.success and pending.metadata.get("pending"), pending.error
        assert titles(mac) == []
        proposal = pending.output["proposalId"]
    finally:
        app.close()
    saves_before = sum(1 for name, _ in mac.calls if name == "save_reminders")

    approved = cli("proposals", "approve", proposal, "--json")
    assert approved.exit_code == 0, approved.output
    assert json.loads(approved.stdout)["status"] == "EXECUTED"
    assert titles(mac) == ["Stamps"]
    assert sum(1 for name, _ in mac.calls if name == "save_reminders") == saves_before + 1

    undo = cli("proposals", "undo", proposal, "--json")  # files the inverse, to approve
    assert undo.exit_code == 6, undo.output  # approval required: it waits for a person
    assert titles(mac) == ["Stamps"]
    undone = cli("proposals", "approve", json.loads(undo.stdout)["proposalId"])
    assert undone.exit_code == 0, undone.output
    assert titles(mac) == []


def test_an_item_edited_in_the_app_meanwhile_is_a_conflict_not_overwritten(
    mac: FakeEventKit,
) -> None:
    (made,) = json.loads(cli("reminders", "add", "--title", "Draft", "--json").stdout)["created"]
    reminder_id = made["id"]
    app = bootstrap.build()
    try:
        change = {"reminders": [{"id": reminder_id, "title": "Agent's title"}]}
        pending = app.gateway.invoke("update_reminders", change, AGENT)
        assert pending.success and pending.metadata.get("pending"), pending.error
        proposal = pending.output["proposalId"]
    finally:
        app.close()
    # The person renames it in the Reminders app: EventKit moves lastModifiedDate on.
    edited = replace(mac.reminders[reminder_id], title="Person's title", modified=mac.tick())
    mac.reminders[reminder_id] = edited

    refused = cli("proposals", "approve", proposal)
    assert refused.exit_code == 4, refused.output  # conflict
    assert mac.reminders[reminder_id].title == "Person's title"


def test_without_access_the_answer_says_which_app_to_enable(mac: FakeEventKit) -> None:
    mac.status["reminder"] = DENIED
    listed = cli("reminders", "list", "--json")
    assert listed.exit_code != 0
    error = json.loads(listed.stdout)["error"]
    assert error["code"] == "permission_denied"
    assert error["details"]["service"] == "reminders"
    steps = " ".join(error["details"]["instructions"])
    assert "Privacy & Security > Reminders" in steps and "iTerm" in steps
    info = json.loads(cli("info", "--json").stdout)
    assert info["permissions"]["reminders"] == "denied"
    assert info["permissions"]["calendar"] == "authorized"


def test_a_background_process_never_prompts_and_says_how_to_get_the_prompt(
    mac: FakeEventKit,
) -> None:
    mac.status["reminder"] = NOT_DETERMINED
    listed = cli("reminders", "list", "--json")  # CliRunner's stdin is no terminal
    error = json.loads(listed.stdout)["error"]
    assert error["code"] == "permission_denied"
    assert "fruitctl doctor" in " ".join(error["details"]["instructions"])
    assert not any(name == "request_access" for name, _ in mac.calls)


def test_the_demo_puts_no_sample_among_the_persons_reminders(mac: FakeEventKit) -> None:
    shown = cli("demo", "--json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["seeded"] is False
    assert titles(mac) == [] and len(mac.lists["reminder"]) == 2


def test_doctor_never_waits_on_a_prompt_nobody_sees(mac: FakeEventKit) -> None:
    mac.status["event"] = NOT_DETERMINED
    shown = cli("doctor", "--json")  # CliRunner's stdin is no terminal
    report = json.loads(shown.stdout)
    assert not any(name == "request_access" for name, _ in mac.calls)
    assert report["calendar"]["permission"] == "not_determined"
    assert report["healthy"] is False and shown.exit_code == 1
    steps = report["calendar"]["error"]["details"]["instructions"]
    assert "Run `fruitctl doctor` in iTerm" in " ".join(steps)


def test_doctor_asks_for_access_at_a_terminal_and_its_write_test_leaves_nothing_behind(
    mac: FakeEventKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    at_a_terminal = Access(mac, may_prompt=True, who=lambda: ITERM)
    monkeypatch.setattr(eventkit, "shared_access", lambda may_prompt: at_a_terminal)
    mac.status["event"] = NOT_DETERMINED
    shown = cli("doctor", "--write-test", "--json")
    report = json.loads(shown.stdout)
    assert ("request_access", ("event", 120.0)) in mac.calls
    assert report["calendar"]["permission"] == "authorized"
    assert report["reminders"]["accessHolder"]
    assert report["writeTest"]["ok"] is True, report["writeTest"]
    assert report["writeTest"]["steps"][-1] == "deleted the list"
    assert titles(mac) == [] and len(mac.lists["reminder"]) == 2
