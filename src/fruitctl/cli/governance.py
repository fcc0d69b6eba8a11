"""``fruitctl mode`` and ``fruitctl stats``: the gateway's mode and what its tools have done."""

from __future__ import annotations

import re
from typing import Annotated, Any

import typer

from fruitctl.cli.app import JsonOption, client, services
from fruitctl.cli.output import out, run, show_table
from fruitctl.domain.errors import InvalidParams
from fruitctl.policy.modes import parse_mode

mode_app = typer.Typer(
    help="Show or set the mode: NORMAL, ALERT, DEGRADED, LOCKDOWN or RECOVERY.",
    invoke_without_command=True,
)


@mode_app.callback()
def mode_root(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Show the current mode (the same as `fruitctl mode get`)."""
    if ctx.invoked_subcommand is None:
        get_command(as_json)


@mode_app.command("get")
def get_command(as_json: JsonOption = False) -> None:
    """Show the current mode, since when and who set it."""
    run(as_json, lambda: client(as_json).mode(), _show_mode)


@mode_app.command("set")
def set_command(
    mode: Annotated[str, typer.Argument(help="NORMAL, ALERT, DEGRADED, LOCKDOWN or RECOVERY.")],
    as_json: JsonOption = False,
) -> None:
    """Set the mode; it applies at once to every front door and process."""

    def change() -> dict[str, Any]:
        app = services(as_json)
        app.modes.set(parse_mode(mode), app_actor())
        return app.modes.describe()

    run(as_json, change, _show_mode)


def stats_command(
    since: Annotated[str, typer.Option(help="How far back: 30m, 24h, 7d.")] = "24h",
    as_json: JsonOption = False,
) -> None:
    """Per tool: calls executed, proposed, approved, blocked, rejected (input refused before
    anything ran) and failed, the error rate (failed calls only) and p50/p95 latency."""
    run(as_json, lambda: client(as_json).stats(_seconds(since)), _show_stats)


def app_actor() -> str:
    from fruitctl.domain.actors import CLI_ACTOR

    return CLI_ACTOR.label


def _seconds(text: str) -> float:
    match = re.fullmatch(r"\s*(\d+)\s*([smhd])\s*", text)
    if not match:
        raise InvalidParams(f"--since must look like 30m, 24h or 7d, not '{text}'.")
    return int(match[1]) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[match[2]]


def _show_mode(state: dict[str, Any]) -> None:
    since = f" since {state['since']} by {state['setBy']}" if state["since"] else " (default)"
    out.print(f"{state['mode']}{since}")


def _show_stats(rows: list[dict[str, Any]]) -> None:
    counted = (
        "calls",
        "executed",
        "proposed",
        "approved",
        "blocked",
        "rejected",
        "failed",
        "retried",
    )
    columns = ("TOOL", *(c.upper() for c in counted), "ERROR RATE", "P50 MS", "P95 MS")
    show_table(
        columns,
        (
            (
                r["tool"],
                *(str(r[c]) for c in counted),
                f"{r['errorRate']:.1%}",
                f"{r['p50Ms']:.2f}",
                f"{r['p95Ms']:.2f}",
            )
            for r in rows
        ),
        empty="No tool calls in that window.",
        right=set(columns[1:]),
    )
