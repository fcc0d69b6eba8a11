"""``fruitctl tools …``: every tool of the registry, listed and callable by name."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from fruitctl.cli import drift
from fruitctl.cli.app import JsonOption, client
from fruitctl.cli.output import emit_json, out, run
from fruitctl.domain.actors import CLI_ACTOR, Actor
from fruitctl.domain.errors import InvalidParams
from fruitctl.tools.model import MODES

tools_app = typer.Typer(help="List the tools and call any of them.", no_args_is_help=True)


class ActorKind(StrEnum):
    human = "human"
    agent = "agent"


@tools_app.command("list")
def list_command(
    category: Annotated[str | None, typer.Option(help="Only this category.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Every tool with its category, risk and what an agent's call gets in each mode: allow
    (runs), approve (a proposal a person approves; a person's own call runs) or deny."""

    asked = client(as_json)
    run(as_json, lambda: asked.describe_tools(category), _show_tools)
    drift.warn(getattr(asked, "drift", {}))  # the daemon keeps older rules or configuration


@tools_app.command("show")
def show_command(
    name: Annotated[str, typer.Argument(help="Tool name, e.g. create_reminders.")],
    as_json: JsonOption = False,
) -> None:
    """One tool: what it does, its input schema, its effective rules and verdict per mode."""

    asked = client(as_json)
    run(as_json, lambda: asked.describe_tool(name), _show_tool)
    drift.warn(getattr(asked, "drift", {}))


@tools_app.command("call")
def call_command(
    name: Annotated[str, typer.Argument(help="Tool name, e.g. query_reminders.")],
    args: Annotated[
        str,
        typer.Option(
            "--args",
            help="Arguments as a JSON object; @FILE reads them from a file, - from standard input.",
        ),
    ] = "{}",
    actor: Annotated[
        ActorKind,
        typer.Option(
            "--as",
            help="Call as a person (default) or as an agent would; with a gateway elsewhere "
            "the token says who calls.",
        ),
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
        return client(as_json).call(name, _arguments(args), who, idempotency_key=key)

    run(as_json, call, lambda output: emit_json(output))


def _arguments(given: str) -> dict[str, Any]:
    text = _read(given)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidParams(f"--args is not valid JSON: {exc.msg} at position {exc.pos}.") from exc
    if not isinstance(value, dict):
        raise InvalidParams("--args must be a JSON object, e.g. '{\"limit\": 5}'.")
    return value


def _read(given: str) -> str:
    """The JSON text ``--args`` names: itself, a file (``@path``) or standard input (``-``)."""
    if given == "-":
        return sys.stdin.read()
    if not given.startswith("@"):
        return given
    path = Path(given[1:]).expanduser()
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise InvalidParams(f"--args {given}: cannot read {path}: {reason}.") from exc


def _show_tools(definitions: list[dict[str, Any]]) -> None:
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in ("NAME", "CATEGORY", "RISK", *MODES):
        table.add_column(column)
    for d in definitions:
        verdicts = [d["verdicts"][mode] for mode in MODES]
        table.add_row(d["name"], d["category"], d["risk_level"], *verdicts)
    out.print(table)


def _show_tool(shown: dict[str, Any]) -> None:
    rules = [f"{k}: {_value(v)}" for k, v in shown["rules"].items() if k != "category"]
    lines = [
        f"{shown['name']} - {shown['title']}",
        "",
        shown["description"],
        "",
        f"category  {shown['category']}",
        f"risk      {shown['risk_level']}",
        "verdicts  " + "  ".join(f"{m} {v}" for m, v in shown["verdicts"].items()),
        "rules     " + "\n          ".join(rules),
        "",
        "input schema:",
        json.dumps(shown["input_schema"], indent=2, ensure_ascii=False),
    ]
    out.print("\n".join(lines), markup=False)


def _value(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)
