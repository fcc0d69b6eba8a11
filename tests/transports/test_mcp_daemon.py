"""``fruitctl mcp`` over stdio in front of a running daemon, as separate processes: the SDK's own
client spawns ``python -m fruitctl mcp`` in a home where a real ``fruitctl serve`` runs.

Through the daemon it answers exactly as in-process (tool list and schemas, a read suite), an
approval given in the client's form is executed by the daemon, and the MCP process never opens
a database of the home. When the daemon stops mid-session, calls answer backend_unavailable with
how to start it - nothing is run in the MCP process - and a daemon started again is used again.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import psutil
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from pipe_wire import READ_TIMEOUT_S
from socket_daemon import daemon_env, running, seed_demo, short_home

pytestmark = pytest.mark.slow  # its shared session does the work, over ten seconds

SERVER = [sys.executable, "-m", "fruitctl", "mcp"]
SESSION_TIMEOUT_S = 120.0  # a whole session; a few seconds when healthy
CLIENT = "parity-client"
READS: list[tuple[str, dict[str, Any]]] = [
    ("get_lists", {}),
    ("query_reminders", {"list": {"all": True}, "status": "all", "limit": 200}),
    ("list_calendars", {}),
    ("query_reminders", {"query": "[?priority = 1]"}),  # an error, with its hint
    ("get_proposal", {"id": "p-none"}),  # an error: no such proposal
    ("query_todos", {}),  # an error: Things is not set up here
]
CREATE = {"reminders": [{"title": "approved in the client"}]}
START_IT = "fruitctl server start"


def params(home: Path) -> StdioServerParameters:
    return StdioServerParameters(command=SERVER[0], args=SERVER[1:], env=daemon_env(home))


def mcp_process() -> psutil.Process:
    """The ``fruitctl mcp`` this test's client spawned."""
    found = [
        child
        for child in psutil.Process().children(recursive=True)
        if child.cmdline()[-2:] == ["fruitctl", "mcp"]
    ]
    assert len(found) == 1, found
    return found[0]


def databases_open(process: psutil.Process, home: Path) -> list[str]:
    """The files of ``home`` the process holds open (SQLite keeps its databases open)."""
    held = [os.path.realpath(f.path) for f in process.open_files()]
    return [path for path in held if path.startswith(os.path.realpath(home))]


async def on_elicit(context: Any, request: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"approve": True})


@dataclass
class Session:
    tools: list[types.Tool]
    reads: list[types.CallToolResult]
    approved: types.CallToolResult | None = None
    held: list[str] | None = None
    after_stop: list[types.CallToolResult] | None = None
    counts: tuple[tuple[int, int], tuple[int, int]] | None = None
    again: types.CallToolResult | None = None


async def converse(home: Path, steps: Any = None) -> Session:
    with anyio.fail_after(SESSION_TIMEOUT_S):
        transport = stdio_client(params(home), errlog=sys.stderr)
        async with Client(
            transport,
            mode="legacy",
            read_timeout_seconds=READ_TIMEOUT_S,
            elicitation_callback=on_elicit,
            client_info=types.Implementation(name=CLIENT, version="1"),
        ) as client:
            tools = (await client.list_tools()).tools
            reads = [await client.call_tool(name, args) for name, args in READS]
            session = Session(tools, reads)
            if steps is not None:
                await steps(client, session)
            return session


def counts(home: Path) -> tuple[int, int]:
    """(proposals, recorded tool calls) in the home's state database."""
    with sqlite3.connect(home / "state.db") as db:
        proposals = db.execute("SELECT COUNT(*) FROM proposals").fetchone()[0]
        calls = db.execute("SELECT COUNT(*) FROM tool_calls").fetchone()[0]
    return proposals, calls


@dataclass
class Recorded:
    home: Path
    in_process: Session
    through: Session


@pytest.fixture(scope="module")
def recorded() -> Iterator[Recorded]:
    with short_home() as home:
        (home / "config.toml").write_text("[approvals]\nmcp_elicitation = true\n")
        seed_demo(home)
        in_process = anyio.run(converse, home)
        with running(home) as daemon:

            async def steps(client: Client, session: Session) -> None:
                session.approved = await client.call_tool("create_reminders", CREATE)
                session.held = await anyio.to_thread.run_sync(
                    lambda: databases_open(mcp_process(), home)
                )
                daemon.stop()
                before = counts(home)
                session.after_stop = [
                    await client.call_tool("get_lists", {}),
                    await client.call_tool("create_reminders", CREATE),
                ]
                session.counts = (before, counts(home))
                with running(home):
                    session.again = await client.call_tool("get_lists", {})

            through = anyio.run(converse, home, steps)
        yield Recorded(home, in_process, through)


def test_the_tool_list_and_schemas_are_the_same(recorded: Recorded) -> None:
    listed = [tool.model_dump() for tool in recorded.through.tools]
    assert listed == [tool.model_dump() for tool in recorded.in_process.tools]
    query = next(t for t in recorded.through.tools if t.name == "query_reminders")
    assert query.output_schema is not None and query.output_schema["type"] == "object"


def test_the_read_suite_answers_the_same(recorded: Recorded) -> None:
    through = [result.model_dump() for result in recorded.through.reads]
    assert through == [result.model_dump() for result in recorded.in_process.reads]
    assert [r.is_error for r in recorded.through.reads] == [False] * 3 + [True] * 3
    lists = (recorded.through.reads[0].structured_content or {})["result"]
    assert lists, "the demo's lists, read through the daemon"


def test_an_approval_in_the_client_is_executed_by_the_daemon(recorded: Recorded) -> None:
    approved = recorded.through.approved
    assert approved is not None and approved.is_error is False
    view = approved.structured_content or {}
    assert view["status"] == "EXECUTED"
    assert view["actor"] == f"agent:mcp:stdio/{CLIENT}"
    assert view["resolvedBy"] == "human:mcp-elicitation"
    with sqlite3.connect(recorded.home / "state.db") as db:
        events = db.execute(
            "SELECT event, actor FROM audit_log WHERE proposal_id = ? ORDER BY seq", (view["id"],)
        ).fetchall()
    assert ("approved", "human:mcp-elicitation") in events
    assert events[0][1] == f"agent:mcp:stdio/{CLIENT}"
    with sqlite3.connect(recorded.home / "local.db") as db:
        titles = [row[0] for row in db.execute("SELECT title FROM reminders")]
    assert titles.count("approved in the client") == 1


def test_the_mcp_process_never_opens_the_homes_databases(recorded: Recorded) -> None:
    assert recorded.through.held == []


def test_a_stopped_daemon_is_backend_unavailable_and_nothing_runs_here(
    recorded: Recorded,
) -> None:
    after = recorded.through.after_stop
    assert after is not None
    for result in after:
        assert result.is_error is True
        assert isinstance(result.content[0], types.TextContent)
        text = result.content[0].text
        assert text.startswith("The fruitctl daemon is not running.")
        assert START_IT in text and "fruitctl service install" in text
    before, later = recorded.through.counts or ((0, 0), (1, 1))
    assert later == before  # no proposal filed, no call recorded: nothing ran


def test_a_daemon_started_again_is_used_again(recorded: Recorded) -> None:
    again = recorded.through.again
    assert again is not None and again.is_error is False
    before = (recorded.through.reads[0].structured_content or {})["result"]
    now = (again.structured_content or {})["result"]
    default = next(x["name"] for x in before if x["isDefault"])
    counted = {x["name"]: x["count"] for x in now}
    assert counted == {x["name"]: x["count"] + (x["name"] == default) for x in before}
