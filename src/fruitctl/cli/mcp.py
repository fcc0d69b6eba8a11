"""``fruitctl mcp``: serve every tool over MCP - stdio by default, streamable HTTP with --http.

Where the tools run is ``transports.mcp_route.choose``: through the daemon when one answers
(the one holder of the person's data), else in this process - on a Mac with Apple data, only
where macOS already lets this process in; otherwise every call says how to start the holder.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import anyio
import typer

from fruitctl.cli.app import services
from fruitctl.daemon.lifecycle import RuntimeFiles
from fruitctl.transports.mcp_route import MAC, choose

if TYPE_CHECKING:
    from fruitctl.bootstrap import App
    from fruitctl.capabilities.toolsets import ToolSet
    from fruitctl.cli.mcp_here import PagedTools
    from fruitctl.transports.mcp import McpTools
    from fruitctl.transports.mcp_front import DaemonTools, RefusingTools

IN_PROCESS_ENV = "FRUITCTL_IN_PROCESS"  # as for every command: never the daemon


def mcp_command(
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP instead of stdio.")
    ] = False,
    host: Annotated[str, typer.Option(help="HTTP address (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP port; 0 picks a free one.")] = 8766,
    tools_option: Annotated[
        str | None,
        typer.Option(
            "--tools",
            metavar="SETS",
            help="Offer only these tools: tool sets (reminders, calendar, things, files, system, "
            "web, approvals, containers) or tool names, comma-separated (default: [mcp] tools, "
            "else every tool).",
        ),
    ] = None,
    print_config: Annotated[
        str | None,
        typer.Option(
            "--print-config",
            metavar="CLIENT",
            help="Print the block that makes CLIENT (claude-desktop, claude-code, cursor, codex) "
            "start this fruitctl, with this machine's paths, and say where it goes.",
        ),
    ] = None,
) -> None:
    """Serve fruitctl's tools to an MCP client (Claude Desktop, Claude Code, Codex, Cursor).
    When fruitctl's daemon runs, the tools run there."""
    if print_config is not None:
        from fruitctl.cli.mcp_config import CLIENTS

        if print_config not in CLIENTS:
            known = ", ".join(CLIENTS)
            raise typer.BadParameter(f"'{print_config}' is not one of {known}.")
        _print_config(print_config)
        return
    offered = _offered(tools_option)
    app = services(False, daemon=False)  # the daemon, if any, is reached below, as MCP's
    if tools_option is None:
        offered = app.mcp_tools
    tools = front(app) or here(app)
    try:
        _serve(app, tools, http, host, port, offered)
    finally:
        if tools is not None:
            tools.close()


def _print_config(client: str) -> None:
    """The block on stdout (to paste or pipe), where it goes on stderr."""
    from fruitctl.cli.mcp_config import block, launch, where

    print(block(client, launch()))
    print(where(client), file=sys.stderr)


def _offered(text: str | None) -> ToolSet:
    """``--tools``, read before anything starts: a wrong name is one line naming the choices."""
    if text is None:
        return None
    from fruitctl.capabilities import toolsets
    from fruitctl.domain.errors import InvalidParams

    try:
        return toolsets.parse(text)
    except InvalidParams as exc:
        raise typer.BadParameter(exc.message, param_hint="--tools") from None


def _serve(
    app: App, tools: McpTools | None, http: bool, host: str, port: int, offered: ToolSet
) -> None:
    if http:
        from fruitctl.transports.mcp_http import serve_http

        serve_http(app, host=host, port=port, tools=tools, offered=offered)
        return
    from fruitctl.transports.mcp import serve_stdio

    gateway = app.gateway if tools is None else None  # never built when another runs the tools
    elicit = app.config.settings.approvals.mcp_elicitation
    if not sys.stdin.isatty():  # a client's pipe: the usual case
        anyio.run(serve_stdio, gateway, elicit, tools, offered)
        return
    print(ON_A_TERMINAL, file=sys.stderr, flush=True)
    _until_interrupted(lambda: anyio.run(serve_stdio, gateway, elicit, tools, offered))


# Said once when a person starts the server by hand: it speaks JSON-RPC, not to a person.
ON_A_TERMINAL = (
    "fruitctl mcp: an MCP server on stdin/stdout, waiting for an MCP client (Claude Desktop, "
    "Claude Code, Cursor, Codex start it themselves); Ctrl-C stops it."
)


def _until_interrupted(serve: Callable[[], None]) -> None:
    """Run ``serve`` until it ends or the person presses Ctrl-C (exit 130, no traceback).

    On a terminal the SDK reads stdin in a worker thread, blocked in a read that no
    cancellation reaches, so the event loop could never finish and the process would not end.
    Served from a daemon thread instead (its worker threads are daemons too), the main thread
    only waits: Ctrl-C ends the wait, the command closes what it opened, and the process exits
    without waiting for the read."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            serve()
        except BaseException as exc:  # handed to the main thread, which reports it
            failure.append(exc)

    thread = threading.Thread(target=run, name="fruitctl-mcp-stdio", daemon=True)
    thread.start()
    try:
        thread.join()
    except KeyboardInterrupt:
        raise typer.Exit(INTERRUPTED) from None
    if failure:
        raise failure[0]


INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command Ctrl-C stopped


def front(app: App) -> DaemonTools | RefusingTools | None:
    """Who runs the tools: the daemon, a refusal, or None for this process's gateway."""
    from fruitctl.transports.mcp_front import DaemonTools, RefusingTools

    files = RuntimeFiles(app.config.paths.socket_file)
    daemon = (
        None if os.environ.get(IN_PROCESS_ENV) else DaemonTools.reach(files.socket, files.token)
    )
    if daemon is not None:
        return daemon
    backends, permissions = _access(app)
    route = choose(sys.platform, False, backends, permissions)
    if route.way != "refuse":
        return None
    print(f"fruitctl mcp: {route.refusal().message}", file=sys.stderr, flush=True)
    return RefusingTools(_listing(), route.refusal())


def here(app: App) -> PagedTools:
    """The tools run by this process's gateway, proposals linked to a daemon's page. The
    gateway is built when the client first needs it (its first ``tools/list`` or call), so
    ``initialize`` is answered without loading the catalog, the store or any backend."""
    from fruitctl.cli.mcp_here import PagedTools, daemon_page

    return PagedTools(lambda: app.gateway, daemon_page(app.config.paths.socket_file))


def _access(app: App) -> tuple[dict[str, str], dict[str, str]]:
    """What holds each service's data here, and - on a Mac only - whether macOS lets this
    process in, each read without a prompt."""
    from fruitctl.backend_factories import backend_name

    settings = app.config.settings
    backends = {
        "reminders": backend_name(settings.reminders.backend),
        "calendar": backend_name(settings.calendar.backend),
    }
    if sys.platform != MAC:
        return backends, {}
    permissions: dict[str, str] = {}
    if backends["reminders"] == "eventkit":
        permissions["reminders"] = app.backend.permission_status()
    if backends["calendar"] == "eventkit":
        permissions["calendar"] = app.calendar_backend.permission_status()
    things = app.things.status()
    if things["state"] != "not set up":
        backends["things"] = "things"
        permissions["things"] = "authorized" if things.get("readable") else "denied"
    return backends, permissions


def _listing() -> list[Any]:
    """The tools as the registry declares them, without a gateway: building one would finish
    half-done approvals, which this process may not touch."""
    from fruitctl.capabilities import all_tools
    from fruitctl.transports.mcp import describe

    return [describe(tool.definition) for tool in all_tools()]
