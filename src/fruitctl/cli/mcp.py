"""``fruitctl mcp``: serve every tool over MCP - stdio by default, streamable HTTP with --http."""

from __future__ import annotations

import importlib
from typing import Annotated

import anyio
import typer

from fruitctl.cli.app import services
from fruitctl.cli.output import reporting
from fruitctl.domain.errors import Unsupported


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
        _serve_http(app, host, port)
        return
    from fruitctl.transports.mcp import serve_stdio

    anyio.run(serve_stdio, app.gateway, app.config.settings.approvals.mcp_elicitation)


def _serve_http(app: object, host: str, port: int) -> None:
    # Streamable HTTP (Origin/Host checks, bearer token) is still being built: say so plainly
    # rather than serve MCP over HTTP without its safety checks.
    try:
        module = importlib.import_module("fruitctl.transports.mcp_http")
    except ModuleNotFoundError:
        with reporting(False):
            raise Unsupported(
                "MCP over HTTP is not built yet; use stdio (`fruitctl mcp`)."
            ) from None
    module.serve_http(app, host=host, port=port)
