"""``proposals approve --allow-for``, ``proposals approve --all`` and ``grants list|revoke``, as a
person types them: exit codes from the one table, errors in one line, nothing faked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app
from fruitctl.cli.output import EXIT_CODES, PARTIAL_FAILURE

runner = CliRunner()


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args))


def cli_json(*args: str) -> Any:
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(autouse=True)
def _lists(home: Path) -> None:
    built = bootstrap.build()
    built.backend.create_list("Work")
    built.backend.create_list("Errands")
    built.close()


def as_agent(title: str, where: str = "Work", tool: str = "create_reminders") -> Any:
    args = {"reminders": [{"title": title, "list": {"name": where}}]}
    if tool == "create_reminder_list":
        args = {"name": title}
    done = cli("tools", "call", tool, "--as", "agent", "--args", json.dumps(args), "--json")
    return json.loads(done.stdout)


def test_approve_with_allow_for_grants_and_the_next_write_runs(home: Path) -> None:
    filed = as_agent("first")
    shown = cli("proposals", "approve", filed["proposalId"], "--allow-for", "2h")
    assert shown.exit_code == 0, shown.output
    assert "Granted g" in shown.stdout
    assert "create_reminders for agent:cli on list:Work until" in shown.stdout
    second = as_agent("second")
    assert isinstance(second, list) and second[0]["title"] == "second"
    assert as_agent("elsewhere", "Errands")["status"] == "pending"
    (grant,) = cli_json("grants", "list")
    assert (grant["scope"], grant["status"], grant["agent"]) == (["list:Work"], "live", "agent:cli")
    listed = cli("grants", "list")
    assert grant["id"] in listed.stdout and "list:Work" in listed.stdout


def test_revoke_ends_the_grant_and_the_next_write_waits(home: Path) -> None:
    filed = as_agent("first")
    approved = cli_json("proposals", "approve", filed["proposalId"], "--allow-for", "30m")
    grant_id = approved["grant"]["id"]
    revoked = cli("grants", "revoke", grant_id)
    assert revoked.exit_code == 0 and f"Revoked {grant_id}." in revoked.stdout
    assert as_agent("after")["status"] == "pending"
    assert cli_json("grants", "list") == []
    assert cli_json("grants", "list", "--all")[0]["status"] == "revoked"
    again = cli("grants", "revoke", grant_id)
    assert again.exit_code == EXIT_CODES["conflict"]
    assert "already ended (revoked)" in again.stderr
    unknown = cli("grants", "revoke", "g0")
    assert unknown.exit_code == EXIT_CODES["not_found"] and "fruitctl grants list" in unknown.stderr


def test_a_mode_change_to_lockdown_ends_the_grants(home: Path) -> None:
    filed = as_agent("first")
    cli_json("proposals", "approve", filed["proposalId"], "--allow-for", "1h", "--scope", "tool")
    assert cli("mode", "set", "lockdown").exit_code == 0
    assert cli("mode", "set", "normal").exit_code == 0
    assert cli_json("grants", "list") == []
    assert as_agent("after", "Errands")["status"] == "pending"


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--allow-for", "25h"], "at most 24h"),
        (["--allow-for", "soon"], "at most 24h"),
        (["--allow-for", "1h", "--scope", "everything"], "'list' or 'tool'"),
        (["--scope", "tool"], "give allowFor too"),
    ],
)
def test_a_grant_past_its_bounds_is_refused_and_nothing_is_approved(
    home: Path, extra: list[str], said: str
) -> None:
    filed = as_agent("first")
    refused = cli("proposals", "approve", filed["proposalId"], *extra)
    assert refused.exit_code == EXIT_CODES["invalid_params"], refused.output
    assert said in refused.stderr and "Traceback" not in refused.stderr
    assert cli_json("proposals", "show", filed["proposalId"])["status"] == "PENDING"


def test_approve_all_decides_each_and_names_the_one_that_fails(home: Path) -> None:
    ids = [as_agent(title)["proposalId"] for title in ("a", "b")]
    refused = as_agent("c", "Errands")["proposalId"]
    cli_json("config", "set", "allowlist.reminders.lists", "Work")  # tightened since
    done = cli("proposals", "approve", "--all", "--json")
    assert done.exit_code == PARTIAL_FAILURE, done.output
    answer = json.loads(done.stdout)
    assert [p["id"] for p in answer["decided"]] == ids
    assert [p["status"] for p in answer["decided"]] == ["EXECUTED", "EXECUTED"]
    (failed,) = answer["failed"]
    assert (failed["id"], failed["error"]["code"]) == (refused, "list_not_allowed")
    assert cli_json("proposals", "show", refused)["status"] == "PENDING"


def test_approve_all_narrowed_by_tool_and_agent(home: Path) -> None:
    reminder = as_agent("a")["proposalId"]
    new_list = as_agent("Shopping", tool="create_reminder_list")["proposalId"]
    nobody = cli("proposals", "approve", "--all", "--agent", "someone-else")
    assert nobody.exit_code == 0 and "Nothing is waiting" in nobody.stdout
    shown = cli("proposals", "approve", "--all", "--agent", "cli", "--tool", "create_reminders")
    assert shown.exit_code == 0, shown.output
    assert reminder in shown.stdout and "EXECUTED" in shown.stdout
    assert cli_json("proposals", "show", new_list)["status"] == "PENDING"


@pytest.mark.parametrize(
    "args",
    [
        ["proposals", "approve"],
        ["proposals", "approve", "p1", "--all"],
        ["proposals", "approve", "p1", "--tool", "x"],
    ],
)
def test_approve_takes_one_id_or_all(home: Path, args: list[str]) -> None:
    refused = cli(*args)
    assert refused.exit_code == EXIT_CODES["invalid_params"], refused.output
    assert "Give one proposal ID, or --all" in refused.stderr
