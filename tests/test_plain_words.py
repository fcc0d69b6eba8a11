"""What users and agents read never speaks of the specifications fruitctl was built from
("seed 000", "seed 004"): every tool description, the MCP instructions, every CLI help page, the
HTTP API's OpenAPI document and the README describe behaviour instead."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import typer
from typer._click import Context
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app as cli_app
from fruitctl.transports.http.app import create_app
from fruitctl.transports.mcp import INSTRUCTIONS

JARGON = re.compile(r"\bseeds?\b(?! ?[=:])|\bseed_\d", re.IGNORECASE)
README = Path(__file__).resolve().parents[1] / "README.md"


def _commands(group: Any, path: list[str]) -> list[list[str]]:
    found = [path]
    if hasattr(group, "list_commands"):  # a group (typer's own click; the root loads lazily)
        context = Context(group)
        for name in group.list_commands(context):
            found += _commands(group.get_command(context, name), [*path, name])
    return found


def test_tool_descriptions_and_instructions() -> None:
    built = bootstrap.build()
    try:
        for tool in built.gateway.registry:
            text = json.dumps([tool.definition.description, tool.definition.input_schema])
            assert not JARGON.search(text), tool.name
        openapi = json.dumps(create_app(built).openapi())
        assert not JARGON.search(openapi), JARGON.search(openapi)
    finally:
        built.close()
    assert not JARGON.search(INSTRUCTIONS)


def test_every_help_page() -> None:
    runner = CliRunner()
    root = typer.main.get_command(cli_app)
    pages = _commands(root, [])
    assert len(pages) > 40
    for path in pages:
        shown = runner.invoke(cli_app, [*path, "--help"])
        assert shown.exit_code == 0, (path, shown.output)
        assert not JARGON.search(shown.stdout), (path, JARGON.search(shown.stdout))


def test_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    assert not JARGON.search(text), JARGON.search(text)
