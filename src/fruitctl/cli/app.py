"""``fruitctl``: the root command. Each command builds the app once and calls one service."""

from __future__ import annotations

import gc
import os
from typing import Annotated, Any

import typer

from fruitctl import __version__, bootstrap
from fruitctl.cli import render
from fruitctl.cli.output import out, reporting, run
from fruitctl.daemon.lifecycle import RuntimeFiles
from fruitctl.transports.rpc.client import DaemonClient

JsonOption = Annotated[bool, typer.Option("--json", help="Print the exact result as JSON.")]

app = typer.Typer(
    name="fruitctl",
    help="A local capability gateway: governed access to reminders for AI agents and people.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)


_open: list[bootstrap.App] = []


def services(as_json: bool = False, *, daemon: bool = True) -> bootstrap.App:
    """The composition root's app for this command (config or store errors reported here);
    closed when the command ends (see ``root``), so its call records are written.

    This is where the CLI picks its path, once for every command: when a daemon answers on the
    socket, ``App.call`` goes through it; otherwise the same gateway runs in this process on the
    same files. ``FRUITCTL_IN_PROCESS=1`` forces the latter."""
    with reporting(as_json):
        built = bootstrap.build()
    _open.append(built)
    if daemon and not os.environ.get("FRUITCTL_IN_PROCESS"):
        files = RuntimeFiles(built.config.paths.socket_file)
        remote = DaemonClient.connect(files.socket, files.token)
        if remote is not None:
            built.use_daemon(remote)
    return built


def _close_all() -> None:
    while _open:
        _open.pop().close()


def _version(value: bool) -> None:
    if value:
        out.print(f"fruitctl {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """fruitctl: reads answer at once, writes are yours to allow."""
    _collect_again()
    ctx.call_on_close(_close_all)


def _collect_again() -> None:
    """End ``fruitctl.__main__``'s pause of the cyclic collector (when it paused it: never
    for a test or a library caller). What loading made stays for good, so it is frozen out of
    every later collection; then collection resumes as usual."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


@app.command("lists")
def lists_command(as_json: JsonOption = False) -> None:
    """Show the reminder lists, the default first, with their open counts."""
    run(as_json, lambda: services(as_json).call("get_lists", {}), render.show_lists)


@app.command("demo")
def demo_command(as_json: JsonOption = False) -> None:
    """Fill an empty store with a sample GTD setup (a store with reminders is left alone)."""

    def show(result: dict[str, Any]) -> None:
        if result["seeded"]:
            lists = ", ".join(result["lists"])
            out.print(f"Added {result['created']} sample reminders in {lists}.")
        else:
            out.print(f"[dim]No sample added: {result['reason']}.[/]")
        if result.get("events"):
            out.print(f"Added {result['events']} sample events (fruitctl calendar upcoming).")

    run(as_json, lambda: services(as_json).demo.seed(), show)


def _register_subcommands() -> None:
    from fruitctl.cli import governance, mcp, proposals, tools
    from fruitctl.cli.audit import audit_app
    from fruitctl.cli.calendar import calendar_app, calendars_command
    from fruitctl.cli.reminders import reminders_app

    app.add_typer(reminders_app, name="reminders")
    app.command("calendars")(calendars_command)
    app.add_typer(calendar_app, name="calendar")
    app.add_typer(proposals.proposals_app, name="proposals")
    app.add_typer(proposals.config_app, name="config")
    app.add_typer(audit_app, name="audit")
    from fruitctl.cli.auth import auth_app  # HTTP API tokens

    app.add_typer(auth_app, name="auth")
    app.add_typer(tools.tools_app, name="tools")
    app.add_typer(governance.mode_app, name="mode")
    app.command("stats")(governance.stats_command)
    app.command("mcp")(mcp.mcp_command)
    from fruitctl.cli.sync import sync_command

    app.command("sync")(sync_command)
    _register_daemon_commands()


def _register_daemon_commands() -> None:
    from fruitctl.cli import aai, server, system
    from fruitctl.cli.serve import serve_command

    app.command("serve")(serve_command)
    app.command("ping")(system.ping_command)
    app.command("info")(system.info_command)
    app.add_typer(server.server_app, name="server")
    app.add_typer(server.service_app, name="service")
    app.add_typer(aai.aai_app, name="aai")


_register_subcommands()


def main() -> None:
    app()
