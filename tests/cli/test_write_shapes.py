"""Every reminders write answers ``--json`` in one shape whatever became of it - done, partly
done, or waiting for a person - so a script reads each outcome with the same keys: ``status``,
the written items under the command's key (``created``, ``updated``, ``deleted``) and ``failed``.
Done and partial through the person's own CLI; pending through the remote CLI, as an agent
(its token) on a real daemon's HTTP API - the only way a CLI write becomes a proposal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from socket_daemon import Raw, cli, cli_here, running, short_home
from typer.testing import CliRunner

from fruitctl.cli.app import app

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

runner = CliRunner()
KEYS = {"status", "failed"}


def local(*args: str, code: int = 0) -> dict[str, Any]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == code, result.output
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


def test_done_and_partial_have_the_same_keys() -> None:
    added = local("reminders", "add", "--title", "a")
    assert added.keys() == KEYS | {"created"} and added["status"] == "done"
    (a,) = added["created"]
    b = local("reminders", "add", "--title", "b")["created"][0]
    for command, key in (("complete", "updated"), ("uncomplete", "updated"), ("delete", "deleted")):
        done = local("reminders", command, a["id"])
        assert done.keys() == KEYS | {key} and (done["status"], done["failed"]) == ("done", [])
        partial = local("reminders", command, b["id"], "nope", code=1)
        assert partial.keys() == done.keys() and partial["status"] == "partial"
        assert [f["id"] for f in partial["failed"]] == ["nope"], command
        if command == "delete":
            break
        a, b = done[key][0], partial[key][0]


def test_update_answers_in_the_same_shape() -> None:
    (item,) = local("reminders", "add", "--title", "old")["created"]
    updated = local("reminders", "update", item["id"], "--title", "new")
    assert updated.keys() == KEYS | {"updated"} and updated["updated"][0]["title"] == "new"


@pytest.fixture(scope="module")
def agent_door() -> Iterator[tuple[Path, dict[str, str]]]:
    """A daemon serving HTTP, and the environment of a CLI elsewhere using an agent's token."""
    with short_home() as home:
        token = cli(home, "auth", "token", "--scope", "agent", "--name", "claude")
        assert token.returncode == 0, token.stderr
        with running(home) as served:
            with Raw(served.socket) as rpc:
                url = rpc.result("system.info")["httpUrl"]
            yield home, {"FRUITCTL_URL": url, "FRUITCTL_TOKEN": token.stdout.strip()}


@pytest.mark.slow
def test_pending_has_the_same_keys_and_the_proposal(
    agent_door: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    home, env = agent_door
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    mine = json.loads(cli(home, "reminders", "add", "--title", "the person's", "--json").stdout)
    seen = {}
    for args, key in (
        (("reminders", "add", "--title", "Post the letter"), "created"),
        (("reminders", "delete", mine["created"][0]["id"]), "deleted"),
    ):
        done = cli_here(elsewhere, *args, "--json", **env)
        assert done.returncode == 6, done.stderr  # approval required: not done yet
        pending = json.loads(done.stdout)
        assert pending["status"] == "pending" and (pending[key], pending["failed"]) == ([], [])
        assert {"proposalId", "approve", "expiresAt"} <= pending.keys()
        seen[key] = pending
    assert cli(home, "proposals", "show", seen["created"]["proposalId"]).returncode == 0


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ("reminders", "add", "--title", "Call the plumber"),
        ("calendar", "create", "--title", "Dentist", "--start", "2026-03-06T17:00"),
        ("lists", "create", "Garden"),
        ("calendars", "create", "Garden"),
        ("tools", "call", "create_reminders", "--args", '{"reminders": [{"title": "x"}]}'),
    ],
)
@pytest.mark.parametrize("as_json", [False, True])
def test_a_write_waiting_for_a_person_exits_6_at_every_command(
    agent_door: tuple[Path, dict[str, str]], tmp_path: Path, args: tuple[str, ...], as_json: bool
) -> None:
    """Approval required (6), as the exit table says: a script never reads a write that has
    not happened as done (0), with or without --json."""
    _, env = agent_door
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    done = cli_here(elsewhere, *args, *(["--json"] if as_json else []), **env)
    assert done.returncode == 6, (done.stdout, done.stderr)
    if as_json or args[0] == "tools":  # tools call prints the tool's own answer, as JSON
        assert json.loads(done.stdout)["status"] == "pending"
    else:
        assert "Waiting for a person's approval" in done.stdout


def test_calendar_writes_answer_in_one_shape_done_or_pending(
    agent_door: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """``status`` and the event under ``event`` (null while a person has not approved it); a
    delete's ``deleted`` and ``scope`` likewise."""
    home, env = agent_door
    create = ("calendar", "create", "--title", "Dentist", "--start", "2026-03-06T17:00", "--json")
    done = json.loads(cli(home, *create).stdout)
    assert (done["status"], done["event"]["title"]) == ("done", "Dentist")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    pending = json.loads(cli_here(elsewhere, *create, **env).stdout)
    assert (pending["status"], pending["event"]) == ("pending", None)
    assert {"proposalId", "approve"} <= pending.keys()
    event_id = done["event"]["id"]
    asked = json.loads(cli_here(elsewhere, "calendar", "delete", event_id, "--json", **env).stdout)
    assert (asked["status"], asked["deleted"], asked["scope"]) == ("pending", None, None)
    gone = json.loads(cli(home, "calendar", "delete", event_id, "--json").stdout)
    assert (gone["status"], gone["deleted"]) == ("done", event_id)
    assert gone.keys() == {"status", "deleted", "scope"} and gone.keys() <= asked.keys()
