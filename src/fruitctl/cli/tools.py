"""``fruitctl tools …``: every tool of the registry, listed and callable by name."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.table import Table

from fruitctl.bootstrap import CLI_ACTOR
from fruitctl.cli.app import JsonOption, services
from fruitctl.cli.output import emit_json, out, run
from fruitctl.domain.errors import InvalidParams
from fruitctl.policy.decision import Actor

tools_app = typer.Typer(help="List the tools and call any of them.", no_args_is_help=True)


class ActorKind(StrEnum):
    human = "human"
    agent = "agent"


@tools_app.command("list")
def list_command(
    category: Annotated[str | None, typer.Option(help="Only this category.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Every tool with its category, risk and the modes it runs in."""

    def definitions() -> list[dict[str, Any]]:
        found = services(as_json).gateway.registry.list_tools()
        return [d.model_dump() for d in found if category is None or d.category == category]

    run(as_json, definitions, _show_tools)


@tools_app.command("call")
def call_command(
    name: Annotated[str, typer.Argument(help="Tool name, e.g. query_reminders.")],
    args: Annotated[str, typer.Option("--args", help="Arguments as a JSON object.")] = "{}",
    actor: Annotated[
        ActorKind, typer.Option("--as", help="Call as a person (default) or as an agent would.")
    ] = ActorKind.human,
    key: Annotated[
        str | None,
        typer.Option("--idempotency-key", help="Repeat a write safely: same key, same result."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Call a tool through the gateway and print what it returns."""

    def call() -> Any:
        who = Actor("agent", "cli") if actor is ActorKind.agent else CLI_ACTOR
        return services(as_json).call(name, _arguments(args), who, idempotency_key=key)

    run(as_json, call, lambda output: emit_json(output))


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidParams(f"--args is not valid JSON: {exc.msg} at position {exc.pos}.") from None
    if not isinstance(value, dict):
        raise InvalidParams("--args must be a JSON object, e.g. '{\"limit\": 5}'.")
    return value


def _show_tools(definitions: list[dict[str, Any]]) -> None:
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("NAME", "CATEGORY", "RISK", "MODES", "APPROVAL"):
        table.add_column(column)
    for d in definitions:
        modes = ",".join(m[:4] for m in d["allowed_modes"]) or "-"
        table.add_row(
            d["name"],
            d["category"],
            d["risk_level"],
            modes,
            "yes" if d["requires_approval"] else "",
        )
    out.print(table)
