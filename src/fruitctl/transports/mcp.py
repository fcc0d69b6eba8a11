"""The MCP front door (seed 002): every registry tool over MCP, through ``Gateway.invoke``.

The tool list is generated from the registry (names, titles, descriptions, input schemas,
annotations), so MCP, the CLI and later front doors never drift apart. A tool's output comes
back as JSON text plus ``structuredContent``; a failed call is ``isError`` with the seed's
human message, so the model can read it and correct itself. A write that needs approval comes
back as the pending proposal - not an error - with the command that approves it.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from fruitctl import __version__
from fruitctl.policy.decision import Actor
from fruitctl.tools.model import ToolDefinition, ToolResult

INSTRUCTIONS = (
    "fruitctl gives you governed access to the person's reminders and a few local tools. "
    "Reads answer at once. A write may come back as {'status': 'pending', 'proposalId': ...}: "
    "a person must approve it; poll get_proposal to learn what became of it."
)
METHOD_NOT_FOUND = -32601


def build_server(gateway: Any) -> Server[Any]:
    """An MCP server whose tools are the gateway's registry."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[describe(d) for d in gateway.registry.list_tools()])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if gateway.registry.get(params.name) is None:  # a protocol error, not a tool result
            raise MCPError(METHOD_NOT_FOUND, f"Unknown tool '{params.name}'.")
        actor = Actor("agent", f"mcp:{_client_name(ctx)}")
        result = await anyio.to_thread.run_sync(
            lambda: gateway.invoke(params.name, params.arguments or {}, actor)
        )
        return render(result)

    return Server(
        "fruitctl",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def describe(definition: ToolDefinition) -> types.Tool:
    hints = definition.annotations
    return types.Tool(
        name=definition.name,
        title=definition.title,
        description=definition.description,
        input_schema=definition.input_schema,
        annotations=types.ToolAnnotations(
            title=hints.title,
            read_only_hint=hints.readOnlyHint,
            destructive_hint=hints.destructiveHint,
            idempotent_hint=hints.idempotentHint,
            open_world_hint=hints.openWorldHint,
        ),
    )


def render(result: ToolResult) -> types.CallToolResult:
    if not result.success:
        return types.CallToolResult(
            content=[types.TextContent(text=result.error or "The call failed.")],
            is_error=True,
        )
    text = json.dumps(result.output, ensure_ascii=False)
    structured = result.output if isinstance(result.output, dict) else {"result": result.output}
    return types.CallToolResult(
        content=[types.TextContent(text=text)], structured_content=structured
    )


def _client_name(ctx: ServerRequestContext[Any]) -> str:
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    return info.name if info is not None and info.name else "client"


async def serve_stdio(gateway: Any) -> None:
    """Serve MCP on stdin/stdout; nothing but protocol messages ever reaches stdout."""
    from mcp.server.stdio import stdio_server

    server = build_server(gateway)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
