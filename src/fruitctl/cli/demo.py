"""``fruitctl demo``: a sample GTD setup in an empty store, never unasked on a remote account."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from fruitctl.cli.app import JsonOption, services
from fruitctl.cli.output import out, run

IntoRemote = Annotated[
    bool,
    typer.Option(
        "--into-remote",
        help="Also on a CalDAV account: the sample then reaches every device that syncs it.",
    ),
]


def demo_command(into_remote: IntoRemote = False, as_json: JsonOption = False) -> None:
    """Fill an empty store with a sample GTD setup (a store with reminders is left alone)."""
    run(as_json, lambda: services(as_json).demo.seed(into_remote=into_remote), _show)


def _show(result: dict[str, Any]) -> None:
    if result["seeded"]:
        lists = ", ".join(result["lists"])
        out.print(f"Added {result['created']} sample reminders in {lists}.")
    else:
        out.print(f"[dim]No sample added: {result['reason']}.[/]")
    if result.get("events"):
        out.print(f"Added {result['events']} sample events (fruitctl calendar upcoming).")
