"""A small MCP server on fruitctl's stdio transport (``transports.stdio_pipes``) whose one tool
writes to stdout every way a library or a child process might. ``test_stdio_pipes`` runs it as
a process: none of that output may reach the protocol's stdout. After serving it prints one
JSON line saying whether stdin and stdout are back in blocking mode.

``LINE_LIMIT`` in the environment lowers the longest line the transport reads whole."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from fruitctl.transports import stdio_pipes

NOISY = types.Tool(name="noisy", input_schema={"type": "object", "properties": {}})


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[NOISY])


async def call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    print("stray print", flush=True)
    os.write(1, b"stray write\n")
    subprocess.run(["echo", "stray child"], check=True)
    return types.CallToolResult(content=[types.TextContent(text="quiet on the wire")])


def blocking(fd: int) -> bool:
    return not fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK


async def main() -> None:
    if "LINE_LIMIT" in os.environ:
        stdio_pipes.LINE_LIMIT = int(os.environ["LINE_LIMIT"])
    server = Server("noisy", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_pipes.stdio_streams() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
    after = {"after": True, "stdin_blocking": blocking(0), "stdout_blocking": blocking(1)}
    sys.stdout.write(json.dumps(after) + "\n")


if __name__ == "__main__":
    anyio.run(main)
