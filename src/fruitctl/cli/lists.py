"""``fruitctl lists``: the reminder lists, and ``fruitctl lists create NAME`` for a new one."""

from __future__ import annotations

from typing import Annotated

import typer

from fruitctl.cli.app import JsonOption, client
from fruitctl.cli.output import answer_write, out, reporting, run

lists_app = typer.Typer(
    help="Reminder lists, the default first, with open counts; create one.",
    invoke_without_command=True,
)

Name = Annotated[
    str, typer.Argument(metavar="NAME", help="The new one's name.", show_default=False)
]


@lists_app.callback()
def lists_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Show the reminder lists, the default first, with their open counts."""
    if ctx.invoked_subcommand is None:
        from fruitctl.cli import render  # rich tables: only the commands that draw them load them

        run(as_json, lambda: client(as_json).call("get_lists", {}), render.show_lists_or_hint)


@lists_app.command("create")
def create_command(name: Name, as_json: JsonOption = False) -> None:
    """Create a reminder list (on a CalDAV account: a new to-do calendar on the server)."""
    created(as_json, "create_reminder_list", name, "list")


def created(as_json: bool, tool: str, name: str, what: str) -> None:
    """Run a ``create_*`` tool for ``name`` and say what it made (or what waits for approval)."""
    with reporting(as_json):
        result = client(as_json).call(tool, {"name": name})
    answer_write(
        as_json,
        result,
        lambda made: out.print(
            f"Created the {what} '{made['name']}' ({made['id']}).", markup=False
        ),
    )
