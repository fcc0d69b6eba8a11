"""What ``fruitctl mcp`` needs of the daemon's socket, on a real daemon: a person's decision on a
proposal (``proposals.decide``, for a session that proved it is the person), the name an agent's
client gives shown under its identity (``display``), and each tool's output schema in
``tools.list`` (so MCP through the daemon lists what MCP in-process lists)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from socket_daemon import Daemon, Raw, demo_daemon, person_token

from fruitctl.capabilities import all_tools

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

CREATE = {"name": "create_reminders", "arguments": {"reminders": [{"title": "decided"}]}}


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with demo_daemon() as served:
        yield served


def proposed(daemon: Daemon) -> str:
    """A proposal filed by an agent, on a connection of its own."""
    with Raw(daemon.socket) as agent:
        agent.result("session.identify", {"kind": "agent", "name": "codex"})
        pending = agent.result("tools.call", CREATE)
    assert pending["status"] == "pending"
    proposal_id: str = pending["proposalId"]
    return proposal_id


def as_person(daemon: Daemon, rpc: Raw) -> None:
    rpc.result(
        "session.identify", {"kind": "human", "name": "cli:me", "token": person_token(daemon)}
    )


def status_of(daemon: Daemon, proposal_id: str) -> Any:
    with Raw(daemon.socket) as agent:
        agent.result("session.identify", {"kind": "agent", "name": "codex"})
        return agent.result(
            "tools.call", {"name": "get_proposal", "arguments": {"id": proposal_id}}
        )


def test_an_agent_cannot_decide(daemon: Daemon) -> None:
    proposal_id = proposed(daemon)
    with Raw(daemon.socket) as rpc:
        rpc.result("session.identify", {"kind": "agent", "name": "codex"})
        refused = rpc.error("proposals.decide", {"id": proposal_id, "action": "approve"})
    assert refused["code"] == "permission_denied"
    assert "daemon's token" in refused["message"]
    assert status_of(daemon, proposal_id)["status"] == "PENDING"


def test_an_unidentified_connection_cannot_decide(daemon: Daemon) -> None:
    proposal_id = proposed(daemon)
    with Raw(daemon.socket) as rpc:
        refused = rpc.error("proposals.decide", {"id": proposal_id, "action": "approve"})
    assert refused["code"] == "permission_denied"
    assert status_of(daemon, proposal_id)["status"] == "PENDING"


def test_a_person_approves_and_the_daemon_executes(daemon: Daemon) -> None:
    proposal_id = proposed(daemon)
    with Raw(daemon.socket) as rpc:
        as_person(daemon, rpc)
        decided = rpc.result("proposals.decide", {"id": proposal_id, "action": "approve"})
    assert (decided["status"], decided["resolvedBy"]) == ("EXECUTED", "human:cli:me")
    assert decided["result"][0]["title"] == "decided"


def test_a_person_rejects_with_a_reason(daemon: Daemon) -> None:
    proposal_id = proposed(daemon)
    with Raw(daemon.socket) as rpc:
        as_person(daemon, rpc)
        decided = rpc.result(
            "proposals.decide", {"id": proposal_id, "action": "reject", "reason": "not now"}
        )
    assert (decided["status"], decided["reason"]) == ("REJECTED", "not now")


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"id": "p1", "action": "delete"}, "action"),
        ({"id": 7, "action": "approve"}, "id"),
        ({"id": "p1", "action": "reject", "reason": 3}, "reason"),
        ({"id": "p1", "action": "approve", "extra": 1}, "extra"),
    ],
)
def test_a_malformed_decision_names_the_field(
    daemon: Daemon, params: dict[str, Any], field: str
) -> None:
    with Raw(daemon.socket) as rpc:
        as_person(daemon, rpc)
        error = rpc.error("proposals.decide", params)
    assert error["code"] == "invalid_params"
    assert error["data"]["field"] == field


def test_an_unknown_proposal_is_proposal_not_found(daemon: Daemon) -> None:
    with Raw(daemon.socket) as rpc:
        as_person(daemon, rpc)
        error = rpc.error("proposals.decide", {"id": "p-none", "action": "approve"})
    assert error["code"] == "proposal_not_found"


def test_a_display_name_is_shown_under_the_identity(daemon: Daemon) -> None:
    with Raw(daemon.socket) as rpc:
        who = rpc.result(
            "session.identify", {"kind": "agent", "name": "mcp:stdio", "display": "Claude Desktop"}
        )
        assert who == {"actor": "agent:mcp:stdio/Claude-Desktop"}
        error = rpc.error("session.identify", {"kind": "agent", "name": "x", "display": 5})
    assert error["code"] == "invalid_params"


def test_tools_list_has_each_output_schema(daemon: Daemon) -> None:
    with Raw(daemon.socket) as rpc:
        listed = {t["name"]: t for t in rpc.result("tools.list")["tools"]}
    for tool in all_tools():
        assert listed[tool.name]["outputSchema"] == tool.definition.output_schema
