"""delete_file over the daemon's socket: an agent's call is a proposal, a person who proved it is
the person approves it and undoes it, on a real daemon and real files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from socket_daemon import Daemon, Raw, running, short_home

pytestmark = [pytest.mark.process, pytest.mark.slow]


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with short_home() as home, running(home) as served:
        yield served


def as_person(daemon: Daemon, rpc: Raw) -> None:
    token = (daemon.socket.parent / "fruitctl.token").read_text().strip()
    rpc.result("session.identify", {"kind": "human", "name": "cli:me", "token": token})


def agent_call(daemon: Daemon, name: str, arguments: dict[str, Any]) -> Any:
    with Raw(daemon.socket) as agent:
        agent.result("session.identify", {"kind": "agent", "name": "codex"})
        return agent.result("tools.call", {"name": name, "arguments": arguments})


def workspace(daemon: Daemon) -> Path:
    folder = daemon.home / "workspace"
    folder.mkdir(exist_ok=True)
    return folder


def test_delete_approve_and_undo_over_the_socket(daemon: Daemon) -> None:
    target = workspace(daemon) / "todo.txt"
    target.write_bytes(b"\x89PNG\r\n\x00binary")
    target.chmod(0o604)
    pending = agent_call(daemon, "delete_file", {"path": str(target)})
    assert pending["status"] == "pending" and target.exists()
    shown = agent_call(daemon, "get_proposal", {"id": pending["proposalId"]})
    fields = {row["field"]: row for row in shown["diff"]}
    assert fields["first lines"]["before"] == "(a binary file: not shown)"
    with Raw(daemon.socket) as rpc:
        as_person(daemon, rpc)
        done = rpc.result("proposals.decide", {"id": pending["proposalId"], "action": "approve"})
        assert done["status"] == "EXECUTED" and not target.exists()
        undo = rpc.result("proposals.decide", {"id": pending["proposalId"], "action": "undo"})
        rpc.result("proposals.decide", {"id": undo["proposalId"], "action": "approve"})
    assert target.read_bytes() == b"\x89PNG\r\n\x00binary"
    assert (target.stat().st_mode & 0o777) == 0o604


def test_the_socket_refuses_a_link_and_fruitctl_own_files(daemon: Daemon) -> None:
    link = workspace(daemon) / "link"
    link.symlink_to("/etc/hostname")
    for path in (link, daemon.home / "state.db", daemon.socket):
        with Raw(daemon.socket) as agent:
            agent.result("session.identify", {"kind": "agent", "name": "codex"})
            error = agent.error(
                "tools.call", {"name": "delete_file", "arguments": {"path": str(path)}}
            )
        assert error["code"] == "permission_denied", error
    assert link.is_symlink() and daemon.socket.exists()
