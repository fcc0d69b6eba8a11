"""``fruitctl mcp`` end to end over stdio, as a separate process: the SDK's own client drives a
session (both the initialize handshake and the SDK's newer discover-based protocol), and a raw
pipe checks that stdout carries JSON-RPC lines and nothing else, and that the server exits
cleanly once its stdin closes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp_types as types
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from pipe_wire import READ_TIMEOUT_S, Wire, jsonrpc, spawn

from fruitctl.capabilities import all_tools

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

SERVER = [sys.executable, "-m", "fruitctl", "mcp"]
SESSION_TIMEOUT_S = 60.0  # a whole session; ~2 s when healthy
EXIT_TIMEOUT_S = 15.0  # from stdin closed to the process gone
HINT = "Hint: Use '==' for equality, not '='."
PROPOSED = {"reminders": [{"title": "proposed by an agent"}]}
EVERYTHING = {"list": {"all": True}, "status": "all", "limit": 200}


# -- one SDK client session, recorded --------------------------------------------------------


@dataclass(frozen=True)
class Transcript:
    server_name: str | None
    instructions: str | None
    tools: list[types.Tool]
    lists: types.CallToolResult
    pending: types.CallToolResult
    proposal: types.CallToolResult
    everything: types.CallToolResult
    bad_query: types.CallToolResult
    unknown_tool: MCPError | None
    stderr: str


async def converse(client: Client) -> dict[str, Any]:
    """The calls of the session, in order; a write before the reads that prove it did nothing."""
    tools = (await client.list_tools()).tools
    lists = await client.call_tool("get_lists", {})
    pending = await client.call_tool("create_reminders", PROPOSED)
    proposal_id = (pending.structured_content or {}).get("proposalId", "")
    unknown: MCPError | None = None
    try:
        await client.call_tool("no_such_tool", {})
    except MCPError as exc:
        unknown = exc
    return {
        "server_name": client.server_info.name if client.server_info else None,
        "instructions": client.instructions,
        "tools": tools,
        "lists": lists,
        "pending": pending,
        "proposal": await client.call_tool("get_proposal", {"id": proposal_id}),
        "everything": await client.call_tool("query_reminders", EVERYTHING),
        "bad_query": await client.call_tool("query_reminders", {"query": "[?priority = 1]"}),
        "unknown_tool": unknown,
    }


async def record(params: StdioServerParameters, mode: str, errlog: TextIO) -> dict[str, Any]:
    with anyio.fail_after(SESSION_TIMEOUT_S):
        transport = stdio_client(params, errlog=errlog)
        async with Client(transport, mode=mode, read_timeout_seconds=READ_TIMEOUT_S) as client:
            return await converse(client)


@pytest.fixture(scope="module", params=["legacy", "auto"])
def transcript(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Transcript:
    """``legacy``: the initialize handshake; ``auto``: server/discover, then the 2026 protocol."""
    home = tmp_path_factory.mktemp(f"stdio-{request.param}")
    params = StdioServerParameters(
        command=SERVER[0],
        args=SERVER[1:],
        env={"FRUITCTL_HOME": str(home), "TZ": "Europe/Rome"},
    )
    with (home.parent / f"{home.name}.stderr").open("w+") as errlog:
        calls = anyio.run(record, params, request.param, errlog)
        errlog.seek(0)
        return Transcript(**calls, stderr=errlog.read())


def test_the_server_identifies_itself(transcript: Transcript) -> None:
    assert transcript.server_name == "fruitctl"
    assert (transcript.instructions or "").startswith("fruitctl gives you governed access")
    assert "calendars" in (transcript.instructions or "")


def test_every_registry_tool_is_listed(transcript: Transcript) -> None:
    names = [tool.name for tool in transcript.tools]
    assert set(names) == {tool.definition.name for tool in all_tools()}
    query = next(tool for tool in transcript.tools if tool.name == "query_reminders")
    assert query.input_schema["properties"]["limit"]["maximum"] == 200
    assert query.annotations is not None and query.annotations.read_only_hint is True


def test_get_lists_shows_the_default_list(transcript: Transcript) -> None:
    result = transcript.lists
    assert result.is_error is False
    lists = (result.structured_content or {})["result"]
    assert [(x["name"], x["isDefault"], x["count"]) for x in lists] == [("Reminders", True, 0)]
    assert isinstance(result.content[0], types.TextContent)
    assert json.loads(result.content[0].text) == lists


def test_an_agent_write_is_a_pending_proposal_and_changes_nothing(transcript: Transcript) -> None:
    pending = transcript.pending
    assert pending.is_error is False
    proposal = pending.structured_content or {}
    assert proposal["status"] == "pending"
    assert proposal["approve"] == f"fruitctl proposals approve {proposal['proposalId']}"
    stored = transcript.proposal.structured_content or {}
    assert (stored["id"], stored["status"]) == (proposal["proposalId"], "PENDING")
    assert (transcript.everything.structured_content or {})["result"] == []


def test_an_invalid_query_is_a_tool_error_with_the_hint(transcript: Transcript) -> None:
    result = transcript.bad_query
    assert result.is_error is True
    assert result.structured_content is None
    assert isinstance(result.content[0], types.TextContent)
    assert result.content[0].text.startswith("Invalid JMESPath expression")
    assert HINT in result.content[0].text


def test_an_unknown_tool_is_a_protocol_error(transcript: Transcript) -> None:
    assert transcript.unknown_tool is not None
    assert "no_such_tool" in str(transcript.unknown_tool)


def test_the_server_logs_nothing_to_stderr(transcript: Transcript) -> None:
    assert "Traceback" not in transcript.stderr


# -- the raw pipe ------------------------------------------------------------------------------


@pytest.fixture
def server(home: Path, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """``fruitctl mcp`` on raw pipes, stderr to a file; killed if a test leaves it running."""
    stderr = tmp_path / "server.stderr"
    with stderr.open("wb") as errlog:
        proc = spawn(SERVER, {**os.environ, "FRUITCTL_HOME": str(home)}, errlog)
    try:
        yield proc, stderr
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()


def request(id_: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


INITIALIZE = request(
    1,
    "initialize",
    {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw-pipe", "version": "0"},
    },
)
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def close_and_wait(proc: subprocess.Popen[bytes], wire: Wire) -> list[bytes]:
    """Close stdin; the server must exit 0 on its own. Returns what it still wrote."""
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=EXIT_TIMEOUT_S) == 0
    rest: list[bytes] = []
    while (line := wire.line()) is not None:
        rest.append(line)
    return rest


@pytest.mark.slow
def test_stdout_carries_only_json_rpc_and_stdin_eof_ends_the_server(
    server: tuple[subprocess.Popen[bytes], Path],
) -> None:
    proc, stderr = server
    wire = Wire(proc)
    wire.send(INITIALIZE)
    assert wire.replies({1})[1]["result"]["serverInfo"]["name"] == "fruitctl"
    wire.send(INITIALIZED)
    wire.send(request(2, "tools/list", {}))
    wire.send(request(3, "tools/call", {"name": "query_reminders", "arguments": {}}))
    wire.send(request(4, "tools/call", {"name": "create_reminders", "arguments": PROPOSED}))
    wire.send(request(5, "tools/call", {"name": "no_such_tool", "arguments": {}}))
    replies = wire.replies({2, 3, 4, 5})
    listed = {tool["name"] for tool in replies[2]["result"]["tools"]}
    assert listed == {tool.definition.name for tool in all_tools()}
    assert replies[3]["result"]["structuredContent"] == {"result": []}
    assert replies[4]["result"]["structuredContent"]["status"] == "pending"
    assert replies[5]["error"]["code"] == -32601
    for line in close_and_wait(proc, wire):
        jsonrpc(line)
    assert "Traceback" not in stderr.read_text()


@pytest.mark.slow
def test_stdin_closed_at_once_ends_the_server_quietly(
    server: tuple[subprocess.Popen[bytes], Path],
) -> None:
    proc, stderr = server
    assert close_and_wait(proc, Wire(proc)) == []
    assert "Traceback" not in stderr.read_text()
