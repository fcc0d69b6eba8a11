"""The floor of ``benchmarks/mcp_stdio.py``: the MCP SDK's low-level ``Server`` with one ``echo``
tool, served on stdio - what any Python MCP server pays before it does anything of its own.

A second tool, ``payload``, answers with a fixed result read at start from the JSON file named by
``FLOOR_PAYLOAD`` (as JSON text plus ``structuredContent``, the shape fruitctl answers in): the
cost of moving the same bytes, with no work behind them.

Run by the benchmark as ``python benchmarks/mcp_floor_server.py``; not part of fruitctl.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

ECHO = types.Tool(
    name="echo",
    description="Return the text it is given.",
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
)

PAYLOAD_FILE = os.environ.get("FLOOR_PAYLOAD")
PAYLOAD: Any = json.loads(Path(PAYLOAD_FILE).read_text()) if PAYLOAD_FILE else None
PAYLOAD_TEXT = json.dumps(PAYLOAD, ensure_ascii=False, separators=(",", ":"))  # encoded once
PAYLOAD_TOOL = types.Tool(
    name="payload",
    description="Return the fixed payload.",
    input_schema={"type": "object", "properties": {}},
)


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[ECHO, PAYLOAD_TOOL])


async def call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    if params.name == "payload":
        structured = PAYLOAD if isinstance(PAYLOAD, dict) else {"result": PAYLOAD}
        return types.CallToolResult(
            content=[types.TextContent(text=PAYLOAD_TEXT)],
            structured_content=structured,
        )
    text = str((params.arguments or {}).get("text", ""))
    return types.CallToolResult(content=[types.TextContent(text=text)])


def build() -> Server[Any]:
    return Server("echo-floor", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve() -> None:
    server = build()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(serve)
