"""``proposals.list`` and ``proposals.get`` on a real daemon's socket: the person (a session
identified with the daemon's token) reads every proposal, exactly as ``fruitctl proposals list
--json`` in-process prints them; an agent reads its own only - another agent's proposal does
not exist for it, as ``get_proposal`` answers; a session that never identified is the agent
its uid names; bad parameters are refused naming the field."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from socket_daemon import (
    Daemon,
    Raw,
    cli,
    demo_daemon,
    person_token,
)

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with demo_daemon() as served:
        yield served


def as_agent(rpc: Raw, name: str) -> None:
    rpc.result("session.identify", {"kind": "agent", "name": name})


def as_person(daemon: Daemon, rpc: Raw) -> None:
    rpc.result(
        "session.identify", {"kind": "human", "name": "cli:me", "token": person_token(daemon)}
    )


def proposed(daemon: Daemon, agent: str, title: str) -> str:
    with Raw(daemon.socket) as rpc:
        as_agent(rpc, agent)
        create = {"reminders": [{"title": title}]}
        pending = rpc.result("tools.call", {"name": "create_reminders", "arguments": create})
    assert pending["status"] == "pending"
    proposal_id: str = pending["proposalId"]
    return proposal_id


def listed(daemon: Daemon, params: dict[str, Any] | None = None, agent: str | None = None) -> Any:
    with Raw(daemon.socket) as rpc:
        if agent is None:
            as_person(daemon, rpc)
        else:
            as_agent(rpc, agent)
        return rpc.result("proposals.list", params or {})


def ids(found: list[dict[str, Any]]) -> set[str]:
    return {p["id"] for p in found}


def test_the_person_reads_every_proposal_as_the_cli_in_process_prints_them(
    daemon: Daemon,
) -> None:
    codex, claude = proposed(daemon, "codex", "one"), proposed(daemon, "claude", "two")
    mine = listed(daemon)
    assert {codex, claude} <= ids(mine)
    in_process = cli(daemon.home, "proposals", "list", "--json", FRUITCTL_IN_PROCESS="1")
    assert in_process.returncode == 0, in_process.stderr
    assert mine == json.loads(in_process.stdout)
    with Raw(daemon.socket) as rpc:
        as_person(daemon, rpc)
        one = rpc.result("proposals.get", {"id": claude})
    shown = cli(daemon.home, "proposals", "show", claude, "--json", FRUITCTL_IN_PROCESS="1")
    assert one == json.loads(shown.stdout)


def test_an_agent_reads_its_own_proposals_only(daemon: Daemon) -> None:
    codex, claude = proposed(daemon, "codex", "mine"), proposed(daemon, "claude", "theirs")
    seen = ids(listed(daemon, {"status": None, "limit": 500}, agent="codex"))
    assert codex in seen and claude not in seen
    assert {p["actor"] for p in listed(daemon, agent="codex")} == {"agent:codex"}
    with Raw(daemon.socket) as rpc:
        as_agent(rpc, "codex")
        assert rpc.result("proposals.get", {"id": codex})["id"] == codex
        hidden = rpc.error("proposals.get", {"id": claude})
    assert hidden["code"] == "proposal_not_found"  # the same answer as for no proposal at all


def test_a_session_that_never_identified_reads_none_of_the_named_agents(daemon: Daemon) -> None:
    proposed(daemon, "codex", "named")
    with Raw(daemon.socket) as rpc:
        found = rpc.result("proposals.list", {"status": None})
    assert all(p["actor"].startswith("agent:uid:") for p in found)


def test_status_and_limit_narrow_the_list(daemon: Daemon) -> None:
    first, second = proposed(daemon, "codex", "a"), proposed(daemon, "codex", "b")
    assert [p["id"] for p in listed(daemon, {"limit": 2})] == [second, first]
    with Raw(daemon.socket) as rpc:
        as_person(daemon, rpc)
        rpc.result("proposals.decide", {"id": first, "action": "approve"})
    executed = listed(daemon, {"status": "executed", "limit": 500})
    assert first in ids(executed) and second not in ids(executed)
    assert {p["status"] for p in executed} == {"EXECUTED"}


@pytest.mark.parametrize(
    ("method", "params", "field"),
    [
        ("proposals.list", {"limit": 0}, "limit"),
        ("proposals.list", {"limit": 501}, "limit"),
        ("proposals.list", {"limit": "5"}, "limit"),
        ("proposals.list", {"limit": True}, "limit"),
        ("proposals.list", {"status": "done"}, "status"),
        ("proposals.list", {"status": "PENDING"}, "status"),
        ("proposals.list", {"status": "pending", "actor": "agent:codex"}, "actor"),
        ("proposals.get", {"id": 7}, "id"),
        ("proposals.get", {}, "id"),
        ("proposals.get", {"id": "p1", "status": "pending"}, "status"),
    ],
)
def test_bad_parameters_are_refused_naming_the_field(
    daemon: Daemon, method: str, params: dict[str, Any], field: str
) -> None:
    with Raw(daemon.socket) as rpc:
        as_person(daemon, rpc)
        error = rpc.error(method, params)
    assert error["code"] == "invalid_params"
    assert error["data"]["field"] == field
    assert field in error["message"]
