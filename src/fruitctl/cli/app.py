"""``fruitctl``: the root command. Each command builds the app once and calls one service."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from fruitctl import __version__, bootstrap
from fruitctl.cli import render
from fruitctl.cli.output import out, reporting, run

JsonOption = Annotated[bool, typer.Option("--json", help="Print the exact result as JSON.")]

app = typer.Typer(
    name="fruitctl",
    help="A local capability gateway: governed access to reminders for AI agents and people.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)


def services(as_json: bool = False) -> bootstrap.App:
    """The composition root's app for this command (config or store errors reported here)."""
    with reporting(as_json):
        return bootstrap.build()


def _version(value: bool) -> None:
    if value:
        out.print(f"fruitctl {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """fruitctl: reads answer at once, writes are yours to allow."""


@app.command("lists")
def lists_command(as_json: JsonOption = False) -> None:
    """Show the reminder lists, the default first, with their open counts."""
    run(as_json, lambda: services(as_json).reminders.get_lists(), render.show_lists)


@app.command("demo")
def demo_command(as_json: JsonOption = False) -> None:
    """Fill an empty store with a sample GTD setup (a store with reminders is left alone)."""

    def show(result: dict[str, Any]) -> None:
        if result["seeded"]:
            lists = ", ".join(result["lists"])
            out.print(f"Added {result['created']} sample reminders in {lists}.")
        else:
            out.print(f"[dim]No sample added: {result['reason']}.[/]")

    run(as_json, lambda: services(as_json).demo.seed(), show)


def _register_subcommands() -> None:
    from fruitctl.cli.reminders import reminders_app

    app.add_typer(reminders_app, name="reminders")


_register_subcommands()


def main() -> None:
    app()
