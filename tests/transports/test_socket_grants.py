"""A standing grant end to end, on a real daemon: the person approves from the CLI (a separate
process, through the daemon's socket) with ``--allow-for``; the agent's next write on its
connection then runs without a proposal, and one outside the grant's scope, after its time,
or after LOCKDOWN (set by another process) is a proposal again."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from socket_daemon import Daemon, Raw, cli, running, seed_demo, short_home

pytestmark = pytest.mark.process  # a real daemon and CLI processes


@pytest.fixture
def served() -> Iterator[tuple[Path, Daemon]]:
    with short_home() as home:
        seed_demo(home)
        with running(home) as daemon:
            yield home, daemon


def write(daemon: Daemon, title: str, where: str | None = None, agent: str = "codex") -> Any:
    item: dict[str, Any] = {"title": title}
    if where is not None:
        item["list"] = {"name": where}
    call = {"name": "create_reminders", "arguments": {"reminders": [item]}}
    with Raw(daemon.socket) as rpc:
        rpc.result("session.identify", {"kind": "agent", "name": agent})
        return rpc.result("tools.call", call)


def is_pending(answer: Any) -> bool:
    return isinstance(answer, dict) and answer.get("status") == "pending"


def approve_granting(home: Path, proposal_id: str, *extra: str) -> dict[str, Any]:
    done = cli(home, "proposals", "approve", proposal_id, *extra, "--json")
    assert done.returncode == 0, done.stderr
    approved: dict[str, Any] = json.loads(done.stdout)
    return approved


def test_inside_a_grant_the_second_write_runs_and_outside_it_waits(
    served: tuple[Path, Daemon],
) -> None:
    home, daemon = served
    first = write(daemon, "first", "Errands")
    assert is_pending(first)
    approved = approve_granting(home, first["proposalId"], "--allow-for", "2h")
    assert approved["status"] == "EXECUTED"
    grant = approved["grant"]
    assert grant["scope"] == ["list:Errands"] and grant["agent"].endswith("codex")

    second = write(daemon, "second", "Errands")
    assert not is_pending(second) and second[0]["title"] == "second"
    assert is_pending(write(daemon, "elsewhere", "Personal"))  # another list
    assert is_pending(write(daemon, "someone else", "Errands", agent="claude"))

    audit = cli(home, "audit", "--json")
    direct = [e for e in json.loads(audit.stdout) if e["event"] == "direct_write"]
    assert [e["payload"]["grant"] for e in direct] == [grant["id"]]

    with sqlite3.connect(home / "state.db") as db:  # its time passes (the store's clock)
        db.execute("UPDATE grants SET expires_at = created_at - 1 WHERE id = ?", (grant["id"],))
    assert is_pending(write(daemon, "late", "Errands"))


def test_lockdown_set_by_another_process_ends_the_grant(served: tuple[Path, Daemon]) -> None:
    home, daemon = served
    first = write(daemon, "first", "Errands")
    approve_granting(home, first["proposalId"], "--allow-for", "1h", "--scope", "tool")
    assert not is_pending(write(daemon, "anywhere", "Personal"))
    assert cli(home, "mode", "set", "lockdown").returncode == 0
    assert cli(home, "mode", "set", "normal").returncode == 0
    listed = cli(home, "grants", "list", "--all", "--json")
    assert [g["status"] for g in json.loads(listed.stdout)] == ["revoked"]
    assert is_pending(write(daemon, "after", "Personal"))
