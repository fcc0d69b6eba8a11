"""``fruitctl audit`` and ``fruitctl audit verify``: read the audit log and check its hash chain."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.text import Text

from fruitctl.cli.app import JsonOption, client
from fruitctl.cli.governance import _seconds
from fruitctl.cli.output import EXIT_CODES, err, out, run, show_table

audit_app = typer.Typer(
    help="The audit log: every change, who made it and when, hash-chained.",
    invoke_without_command=True,
)
BROKEN_CHAIN = EXIT_CODES["conflict"]  # the log disagrees with itself: a conflict, exit 4


@audit_app.callback()
def audit_root(
    ctx: typer.Context,
    since: Annotated[
        str | None, typer.Option(help="How far back: 30m, 24h, 7d (default: no limit).")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many entries.")] = 200,
    proposal: Annotated[
        str | None, typer.Option("--proposal", help="Only the entries of this proposal.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """List audit entries, newest first."""
    if ctx.invoked_subcommand is not None:
        return

    def entries() -> list[dict[str, Any]]:
        back = None if since is None else _seconds(since)
        return client(as_json).audit(back, limit, proposal)

    run(as_json, entries, _show_entries)


@audit_app.command("verify")
def verify_command(as_json: JsonOption = False) -> None:
    """Recompute every hash of the chain; exit 4 and name each row if anything was tampered with."""
    report = run(as_json, lambda: client(as_json).verify_audit(), _show_verify)
    if not report["ok"]:
        raise typer.Exit(BROKEN_CHAIN)


def _show_entries(rows: list[dict[str, Any]]) -> None:
    # Text, not markup: actors and events come from agents and must print as written.
    show_table(
        ("SEQ", "AT", "ACTOR", "EVENT", "PROPOSAL", "TOOL"),
        (
            (
                str(r["seq"]),
                Text(r["at"]),
                Text(r["actor"]),
                Text(r["event"]),
                _optional(r["proposalId"]),
                _optional(r["tool"]),
            )
            for r in rows
        ),
        empty="No audit entries.",
        right={"SEQ"},
    )


def _optional(value: str | None) -> Text:
    return Text(value) if value is not None else Text("-", style="dim")


def _show_verify(report: dict[str, Any]) -> None:
    checked = report["checked"]
    entries = "entry" if checked == 1 else "entries"
    if report["ok"]:
        out.print(f"ok: {checked} {entries}, chain intact")
        return
    for problem in report["problems"]:
        err.print(f"[bold red]tampered:[/] {escape(problem['message'])}")
    err.print(f"{len(report['problems'])} problem(s) in {checked} {entries}")
