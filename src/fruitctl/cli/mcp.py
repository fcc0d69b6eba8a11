"""``fruitctl mcp``: serve every tool over MCP - stdio by default, streamable HTTP with --http."""

from __future__ import annotations

from typing import Annotated

import anyio
import typer

from fruitctl.cli.app import services


def mcp_command(
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP instead of stdio.")
    ] = False,
    host: Annotated[str, typer.Option(help="HTTP address (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP port; 0 picks a free one.")] = 8766,
) -> None:
    """Serve fruitctl's tools to an MCP client (Claude Desktop, Claude Code, Codex, Cursor)."""
    app = services(False)
    if http:
        from fruitctl.transports.mcp_http import serve_http

        serve_http(app, host=host, port=port)
        return
    from fruitctl.transports.mcp import serve_stdio

    anyio.run(serve_stdio, app.gateway, app.config.settings.approvals.mcp_elicitation)
