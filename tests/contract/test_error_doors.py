"""An error means the same at every door: a tool raises each canonical code (a real ``fruitctl
serve`` whose reminders backend is ``raising_backend``), and the code, its message, its details
and the exit status arrive alike through the in-process CLI, the CLI through the daemon's
socket, the raw socket (JSON-RPC and AAI), the HTTP API on loopback with a token, the CLI
pointed at that API from another home (``FRUITCTL_URL``), ``fruitctl aai call`` and MCP (the
SDK's own client: over stdio to ``fruitctl mcp``, and over HTTP on the daemon's ``/mcp``).
Each door's names and numbers are the one table's (``domain.error_table``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from raising_backend import DETAILS, RAISE_ENV, message
from socket_daemon import FRUITCTL, Raw, cli, daemon_env, running, short_home
from typer.testing import CliRunner, Result

from fruitctl.cli.app import app
from fruitctl.domain import error_table
from fruitctl.domain.errors import ERROR_CODES

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

runner = CliRunner()
BACKEND = "raising_backend:raising_reminders"
GET_LISTS = ["tools", "call", "get_lists", "--json"]
ENVELOPE = {"version": "1.0", "tool": "get_lists", "params": {}, "request_id": "r-contract"}
MCP_DEADLINE_S = 300.0  # 21 calls through a process and the daemon; a loaded machine is slow


@dataclass
class Served:
    home: Path
    socket: Path
    url: str
    agent: str
    raise_file: Path

    def env(self, **extra: str) -> dict[str, str]:
        """What a CLI on the gateway's machine runs with (its reminders raise, as the daemon's)."""
        return {
            "FRUITCTL_HOME": str(self.home),
            "FRUITCTL_REMINDERS__BACKEND": BACKEND,
            RAISE_ENV: str(self.raise_file),
            **extra,
        }


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with short_home() as home:
        raise_file = home / "raise-code"
        made = cli(home, "auth", "token", "--scope", "agent", "--name", "claude")
        assert made.returncode == 0, made.stderr
        with running(
            home, FRUITCTL_REMINDERS__BACKEND=BACKEND, **{RAISE_ENV: str(raise_file)}
        ) as daemon:
            with Raw(daemon.socket) as rpc:
                url = rpc.result("system.info")["httpUrl"]
            found = Served(home, daemon.socket, url, made.stdout.strip(), raise_file)
            info = run_cli(["info", "--json"], found.env())
            assert json.loads(info.stdout)["daemon"] is True  # the CLI's socket door is real
            yield found


@pytest.fixture
def raising(served: Served) -> Iterator[Served]:
    yield served
    served.raise_file.write_text("")  # the next test starts with a backend that answers


def expect(code: str) -> dict[str, Any]:
    """The error as the CLI prints it with --json, whatever door it came through."""
    return {"error": {"code": code, "message": message(code), "details": DETAILS}}


def run_cli(args: list[str], env: dict[str, str]) -> Result:
    return runner.invoke(app, args, env=env)


def cli_error(done: Result, code: str) -> None:
    assert json.loads(done.stdout) == expect(code), done.output
    assert done.exit_code == error_table.row_of(code).exit


@pytest.mark.parametrize("code", ERROR_CODES)
def test_every_code_arrives_alike_through_every_door(raising: Served, code: str) -> None:
    raising.raise_file.write_text(code)
    row = error_table.row_of(code)
    assert row.code == code  # every canonical code has its row

    cli_error(run_cli(GET_LISTS, raising.env(FRUITCTL_IN_PROCESS="1")), code)
    cli_error(run_cli(GET_LISTS, raising.env()), code)  # through the daemon's socket
    elsewhere = raising.home / "elsewhere"
    elsewhere.mkdir(mode=0o700, exist_ok=True)
    remote = {"FRUITCTL_HOME": str(elsewhere), "FRUITCTL_URL": raising.url}
    cli_error(run_cli(GET_LISTS, {**remote, "FRUITCTL_TOKEN": raising.agent}), code)

    answered = httpx.post(
        f"{raising.url}/tools/get_lists",
        json={},
        headers={"Authorization": f"Bearer {raising.agent}"},
        timeout=60,
    )
    assert answered.status_code == row.status
    assert answered.json()["error"] == {
        "code": row.wire,
        "message": message(code),
        "retryable": error_table.retryable(code),
        "details": DETAILS,
    }

    with Raw(raising.socket) as rpc:
        error = rpc.error("tools.call", {"name": "get_lists", "arguments": {}})
        assert error["code"] == code and error["message"] == message(code)
        assert error["data"] == {
            **DETAILS,
            "jsonrpcCode": row.jsonrpc,
            "retryable": error_table.retryable(code),
        }
        aai = rpc.call(ENVELOPE)
    assert aai == {
        "version": "1.0",
        "request_id": "r-contract",
        "status": "error",
        "error": {
            "code": row.aai,
            "message": message(code),
            "retryable": error_table.retryable(code),
            "details": DETAILS,
        },
    }
    for env in (raising.env(), raising.env(FRUITCTL_IN_PROCESS="1")):
        called = run_cli(["aai", "call", json.dumps(ENVELOPE)], env)
        assert json.loads(called.stdout) == aai and called.exit_code == row.exit


@pytest.mark.slow
def test_every_code_arrives_alike_through_mcp(raising: Served) -> None:
    """MCP over stdio to ``fruitctl mcp`` (which calls the daemon) and over HTTP on the daemon's
    ``/mcp`` with the agent's token: each code's message as the text and the code in ``_meta``;
    an unknown tool, JSON-RPC's method not found, numbered as in the table."""
    server = StdioServerParameters(
        command=FRUITCTL[0],
        args=[*FRUITCTL[1:], "mcp"],
        env=daemon_env(raising.home, FRUITCTL_REMINDERS__BACKEND=BACKEND),
    )
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {raising.agent}"})
    doors = {
        "stdio": stdio_client(server, errlog=sys.stderr),
        "http": streamable_http_client(f"{raising.url}/mcp", http_client=http),
    }

    async def session(transport: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        with anyio.fail_after(MCP_DEADLINE_S):
            async with Client(transport, mode="legacy") as client:
                for code in ERROR_CODES:
                    raising.raise_file.write_text(code)
                    seen[code] = await client.call_tool("get_lists", {})
                with pytest.raises(MCPError) as unknown:  # a protocol error, numbered alike
                    await client.call_tool("no_such_tool", {})
                assert unknown.value.code == error_table.row_of("method_not_found").jsonrpc
        return seen

    async def main() -> dict[str, dict[str, Any]]:
        async with http:
            return {door: await session(transport) for door, transport in doors.items()}

    for door, seen in anyio.run(main).items():
        for code, result in seen.items():
            assert result.is_error, (door, code)
            assert [c.text for c in result.content] == [message(code)], door
            assert result.meta == {
                "dev.fruitctl/error": {"code": code, "retryable": error_table.retryable(code)}
            }, door


def test_remote_invalid_input_exits_as_local(raising: Served) -> None:
    """The regression: the HTTP API names invalid_params VALIDATION_ERROR, and a remote CLI
    that did not know the name said "backend unreachable" (exit 9, retryable) where a local one
    exits 2."""
    args = ["reminders", "list", "--limit", "0", "--json"]
    here = run_cli(args, raising.env(FRUITCTL_IN_PROCESS="1"))
    elsewhere = raising.home / "elsewhere"
    elsewhere.mkdir(mode=0o700, exist_ok=True)
    remote = {
        "FRUITCTL_HOME": str(elsewhere),
        "FRUITCTL_URL": raising.url,
        "FRUITCTL_TOKEN": raising.agent,
    }
    there = run_cli(args, remote)
    assert here.exit_code == there.exit_code == 2, (here.output, there.output)
    assert json.loads(there.stdout) == json.loads(here.stdout)
    assert json.loads(there.stdout)["error"]["code"] == "invalid_params"


def test_aai_call_of_text_that_is_no_json_answers_in_aai(raising: Served) -> None:
    """Through the daemon the CLI first speaks JSON-RPC (to say who it is); text that is no JSON
    is still answered with AAI's INVALID_REQUEST envelope, worded as in-process, exit 2. Run as
    processes: a fresh connection, as a person's shell has (this process may keep one that
    spoke AAI last)."""
    answers = []
    for extra in ({}, {"FRUITCTL_IN_PROCESS": "1"}):
        env = {**raising.env(**extra)}
        del env["FRUITCTL_HOME"]
        done = cli(raising.home, "aai", "call", "not json", **env)
        assert done.returncode == 2, done.stdout + done.stderr
        answers.append(json.loads(done.stdout))
    through_daemon, in_process = answers
    assert through_daemon == in_process
    assert set(through_daemon) == {"version", "request_id", "status", "error"}
    assert through_daemon["status"] == "error" and through_daemon["request_id"] is None
    assert through_daemon["error"]["code"] == "INVALID_REQUEST"
    assert through_daemon["error"]["message"].startswith("Invalid JSON")


def test_an_unknown_tool_is_method_not_found_at_every_door(raising: Served) -> None:
    """No tool by that name: ``method_not_found`` (exit 2) wherever it is called, MCP's being
    the protocol error of that number (a client's mistake, not a tool's failure)."""
    args = ["tools", "call", "no_such_tool", "--json"]
    row = error_table.row_of("method_not_found")
    elsewhere = raising.home / "elsewhere"
    elsewhere.mkdir(mode=0o700, exist_ok=True)
    remote = {
        "FRUITCTL_HOME": str(elsewhere),
        "FRUITCTL_URL": raising.url,
        "FRUITCTL_TOKEN": raising.agent,
    }
    printed = []
    for env in (raising.env(FRUITCTL_IN_PROCESS="1"), raising.env(), remote):
        done = run_cli(args, env)
        assert done.exit_code == row.exit, done.output
        printed.append(json.loads(done.stdout)["error"])
    assert printed[0] == printed[1] == printed[2]
    assert printed[0]["code"] == "method_not_found"
    answered = httpx.post(
        f"{raising.url}/tools/no_such_tool",
        json={},
        headers={"Authorization": f"Bearer {raising.agent}"},
        timeout=60,
    )
    assert answered.status_code == row.status and answered.json()["error"]["code"] == row.wire
    with Raw(raising.socket) as rpc:
        error = rpc.error("tools.call", {"name": "no_such_tool", "arguments": {}})
        assert error["code"] == row.code and error["data"]["jsonrpcCode"] == row.jsonrpc
        aai = rpc.call({**ENVELOPE, "tool": "no_such_tool"})
    assert aai["error"]["code"] == row.aai
    assert error["message"] == aai["error"]["message"] == printed[0]["message"]


def test_the_http_servers_own_refusals_exit_as_their_canonical_code(
    raising: Served, tmp_path: Path
) -> None:
    """A body over the server's limit is the HTTP door's PAYLOAD_TOO_LARGE: a remote CLI reads
    it as invalid_request (exit 2, as an over-long socket line), not "unreachable" (exit 9)."""
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"pad": "x" * 1_100_000}))  # over the default 1 MiB
    elsewhere = raising.home / "elsewhere"
    elsewhere.mkdir(mode=0o700, exist_ok=True)
    remote = {
        "FRUITCTL_HOME": str(elsewhere),
        "FRUITCTL_URL": raising.url,
        "FRUITCTL_TOKEN": raising.agent,
    }
    done = run_cli(["tools", "call", "get_lists", "--args", f"@{big}", "--json"], remote)
    assert done.exit_code == error_table.row_of("invalid_request").exit == 2, done.output
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "invalid_request" and "too large" in error["message"]
    local = run_cli(
        ["tools", "call", "get_lists", "--args", f"@{big}", "--json"],
        raising.env(FRUITCTL_IN_PROCESS="1"),
    )
    assert local.exit_code == done.exit_code  # refused here too, as invalid input


def test_aai_call_of_a_json_rpc_request_is_no_envelope(raising: Served) -> None:
    """``aai call`` sends AAI only: a JSON-RPC request given to it is refused as INVALID_REQUEST
    in AAI's shape (the socket would have answered it in JSON-RPC), here and via the daemon."""
    text = json.dumps({**ENVELOPE, "request_id": "r2", "jsonrpc": "2.0", "method": "system.ping"})
    for env in (raising.env(), raising.env(FRUITCTL_IN_PROCESS="1")):
        done = run_cli(["aai", "call", text], env)
        assert done.exit_code == 2, done.output
        answer = json.loads(done.stdout)
        assert answer["status"] == "error" and answer["request_id"] == "r2"
        assert answer["error"]["code"] == "INVALID_REQUEST" and "jsonrpc" not in answer
