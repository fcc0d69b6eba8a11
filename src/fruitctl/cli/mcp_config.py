"""``fruitctl mcp --print-config CLIENT``: the block an MCP client needs to start fruitctl, with
this machine's absolute paths, and where that client keeps it.

Clients start their servers without the person's shell, so the block names the executable by
its absolute path and carries ``FRUITCTL_HOME`` when one is set here (the client then reaches the
same home as this shell). Every value is written by a serializer for its format (JSON, TOML,
a shell line quoted by ``shlex``), never pasted into a template.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

CLIENTS = ("claude-desktop", "claude-code", "cursor", "codex")
SERVER_NAME = "fruitctl"
CARRIED_ENV = ("FRUITCTL_HOME",)
"""What this shell sets that the client's process must see to reach the same fruitctl."""


@dataclass(frozen=True)
class Launch:
    """How a client starts ``fruitctl mcp``: a command, its arguments, its environment."""

    command: str
    args: tuple[str, ...]
    env: dict[str, str]


def launch(argv0: str | None = None, environ: dict[str, str] | None = None) -> Launch:
    """This installation's ``fruitctl mcp``: the ``fruitctl`` script that is running, by its
    absolute path, else this Python (the venv's own, not the file it links to) with ``-m``."""
    script = Path(argv0 if argv0 is not None else sys.argv[0])
    found = environ if environ is not None else dict(os.environ)
    env = {key: found[key] for key in CARRIED_ENV if found.get(key)}
    if script.name == "fruitctl" and script.is_file():
        return Launch(os.path.abspath(script), ("mcp",), env)
    return Launch(os.path.abspath(sys.executable), ("-m", "fruitctl", "mcp"), env)


def block(client: str, how: Launch) -> str:
    """The text to paste (or, for Claude Code, run)."""
    if client == "claude-code":
        return _claude_code(how)
    if client == "codex":
        return _codex(how)
    if client in ("claude-desktop", "cursor"):
        return json.dumps({"mcpServers": {SERVER_NAME: _entry(how)}}, indent=2)
    raise ValueError(client)


def where(client: str, platform: str = sys.platform) -> str:
    """Where the client keeps the block, in words."""
    if client == "claude-code":
        return "Run this line once; Claude Code keeps it in ~/.claude.json for all your projects."
    if client == "codex":
        return "Add this to ~/.codex/config.toml (or $CODEX_HOME/config.toml when you set one)."
    if client == "cursor":
        return (
            "Add the fruitctl entry under mcpServers in ~/.cursor/mcp.json (every project) "
            "or <project>/.cursor/mcp.json (one project)."
        )
    return _desktop_file(platform)


def _desktop_file(platform: str) -> str:
    if platform == "darwin":
        place = "~/Library/Application Support/Claude/claude_desktop_config.json"
    elif platform == "win32":
        place = r"%APPDATA%\Claude\claude_desktop_config.json"
    else:
        return (
            "Claude Desktop is made for macOS and Windows; on those it reads "
            "claude_desktop_config.json (Settings > Developer > Edit Config opens it)."
        )
    return (
        f"Add the fruitctl entry under mcpServers in {place} "
        "(Settings > Developer > Edit Config opens it), then restart Claude Desktop."
    )


def _entry(how: Launch) -> dict[str, object]:
    entry: dict[str, object] = {"command": how.command, "args": list(how.args)}
    if how.env:
        entry["env"] = dict(how.env)
    return entry


def _claude_code(how: Launch) -> str:
    words = ["claude", "mcp", "add", "--scope", "user"]
    for key, value in how.env.items():
        words += ["--env", f"{key}={value}"]
    words += [SERVER_NAME, "--", how.command, *how.args]
    return shlex.join(words)


def _codex(how: Launch) -> str:
    lines = [
        f"[mcp_servers.{SERVER_NAME}]",
        f"command = {_toml(how.command)}",
        f"args = [{', '.join(_toml(a) for a in how.args)}]",
    ]
    if how.env:
        lines += ["", f"[mcp_servers.{SERVER_NAME}.env]"]
        lines += [f"{key} = {_toml(value)}" for key, value in how.env.items()]
    return "\n".join(lines)


def _toml(value: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's (backslash, quote, \\uXXXX)."""
    return json.dumps(value)
