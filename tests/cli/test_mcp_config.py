"""``fruitctl mcp --print-config CLIENT`` prints a block a person pastes as it is: it parses in
its client's format, names this installation by its absolute path, carries FRUITCTL_HOME, and -
started exactly as printed, by the MCP SDK's own client - serves fruitctl's tools."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from fruitctl.cli.mcp_config import CLIENTS, block, launch, where

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

SCRIPT = Path(sys.executable).parent / "fruitctl"  # the venv's console script
SESSION_TIMEOUT_S = 60.0


def printed(client: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FRUITCTL_HOME": str(home)}
    return subprocess.run(
        [str(SCRIPT), "mcp", "--print-config", client],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def read_back(client: str, text: str) -> dict[str, Any]:
    """The command, args and env a client would take from ``text``."""
    if client == "codex":
        entry = tomllib.loads(text)["mcp_servers"]["fruitctl"]
        return {"command": entry["command"], "args": entry["args"], "env": entry.get("env", {})}
    if client == "claude-code":
        words = shlex.split(text)
        assert words[:5] == ["claude", "mcp", "add", "--scope", "user"]
        cut = words.index("--")
        env = dict(w.split("=", 1) for w in words[6 : cut - 1 : 2])
        assert words[cut - 1] == "fruitctl"
        return {"command": words[cut + 1], "args": words[cut + 2 :], "env": env}
    entry = json.loads(text)["mcpServers"]["fruitctl"]
    return {"command": entry["command"], "args": entry["args"], "env": entry.get("env", {})}


@pytest.mark.parametrize("client", CLIENTS)
def test_each_block_names_this_installation(client: str, tmp_path: Path) -> None:
    home = tmp_path / "a home with 'quotes' and \\ spaces"
    done = printed(client, home)
    assert done.returncode == 0, done.stderr
    got = read_back(client, done.stdout)
    assert got == {"command": str(SCRIPT), "args": ["mcp"], "env": {"FRUITCTL_HOME": str(home)}}
    assert where(client) in done.stderr  # where it goes, apart from what to paste


def test_an_unknown_client_is_refused_naming_the_known_ones(tmp_path: Path) -> None:
    done = printed("vscode", tmp_path)
    assert done.returncode == 2
    assert all(name in done.stderr for name in CLIENTS)


def test_without_the_script_the_block_runs_this_python(tmp_path: Path) -> None:
    how = launch(argv0=str(tmp_path / "__main__.py"), environ={})
    assert (how.command, how.args, how.env) == (sys.executable, ("-m", "fruitctl", "mcp"), {})
    assert "env" not in json.loads(block("cursor", how))["mcpServers"]["fruitctl"]


def test_each_place_is_said_for_the_platform() -> None:
    assert "Library/Application Support/Claude" in where("claude-desktop", "darwin")
    assert "%APPDATA%" in where("claude-desktop", "win32")
    assert "macOS and Windows" in where("claude-desktop", "linux")
    assert "~/.codex/config.toml" in where("codex")


async def _tools(params: StdioServerParameters) -> list[str]:
    with anyio.fail_after(SESSION_TIMEOUT_S):
        async with Client(stdio_client(params), mode="legacy") as client:
            return [tool.name for tool in (await client.list_tools()).tools]


@pytest.mark.parametrize("client", ["codex", "claude-code"])
def test_the_block_as_printed_starts_a_working_server(client: str, tmp_path: Path) -> None:
    got = read_back(client, printed(client, tmp_path / "home").stdout)
    env = {**got["env"], "PATH": os.environ.get("PATH", ""), "FRUITCTL_IN_PROCESS": "1"}
    params = StdioServerParameters(command=got["command"], args=got["args"], env=env)
    names = anyio.run(_tools, params)
    assert "query_reminders" in names and "create_reminders" in names
