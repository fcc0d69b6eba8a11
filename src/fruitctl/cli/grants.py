"""``fruitctl grants …``: the standing grants a person gave with an approval
(``proposals approve ID --allow-for 2h``), listed and revoked."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.text import Text

from fruitctl.cli.app import JsonOption, client
from fruitctl.cli.output import out, run, show_table, shown
from fruitctl.domain.wording import spoken_when

grants_app = typer.Typer(
    help="The standing grants: what an agent may write without asking, where, until when.",
    no_args_is_help=True,
)


@grants_app.command("list")
def list_command(
    every: Annotated[
        bool, typer.Option("--all", help="Also those that ended (expired or revoked).")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """The live grants, newest first."""
    run(as_json, lambda: client(as_json).grants(every), _show_list)


@grants_app.command("revoke")
def revoke_command(
    grant_id: Annotated[str, typer.Argument(help="Grant ID (see: fruitctl grants list).")],
    as_json: JsonOption = False,
) -> None:
    """End a grant now: the agent's next write there is a proposal again."""

    def show(grant: dict[str, Any]) -> None:
        out.print(f"Revoked {grant['id']}.")

    run(as_json, lambda: client(as_json).revoke_grant(grant_id), show)


def _show_list(rows: list[dict[str, Any]]) -> None:
    # Agent and list names come from callers and apps: never markup, hidden characters shown.
    show_table(
        ("ID", "STATUS", "TOOL", "AGENT", "WHERE", "UNTIL", "BY"),
        (
            (
                r["id"],
                r["status"],
                r["tool"],
                shown(r["agent"]),
                shown(", ".join(r["scope"])) if r["scope"] else Text("anywhere"),
                spoken_when(r["revokedAt"] or r["expiresAt"]),
                shown(r["createdBy"]),
            )
            for r in rows
        ),
        empty="No standing grants (give one: fruitctl proposals approve ID --allow-for 2h).",
    )
