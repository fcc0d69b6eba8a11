"""``fruitctl reminders list --search TEXT``: reminders whose title or notes contain a text, in
any case, in the table and in --json; and a list named by a bare string through ``tools call``."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from fruitctl.cli.app import app

runner = CliRunner()


def cli_json(*args: str) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _add(title: str, *extra: str) -> None:
    cli_json("reminders", "add", "--title", title, *extra)


def test_search_finds_title_or_notes_in_any_case() -> None:
    _add("Call the DENTIST")
    _add("Teeth", "--notes", "ask the Dentist about the crown")
    _add("Straße fegen")
    _add("buy milk")
    found = cli_json("reminders", "list", "--search", "dentist")
    assert sorted(r["title"] for r in found) == ["Call the DENTIST", "Teeth"]
    assert [r["title"] for r in cli_json("reminders", "list", "--search", "STRASSE")] == [
        "Straße fegen"
    ]
    table = runner.invoke(app, ["reminders", "list", "--search", "DENTIST"])
    assert table.exit_code == 0
    assert "Teeth" in table.stdout and "buy milk" not in table.stdout


def test_search_goes_with_the_other_filters() -> None:
    _add("milk for the office")
    _add("oat milk")
    (done,) = cli_json("reminders", "list", "--search", "oat")
    cli_json("reminders", "complete", done["id"])
    assert [r["title"] for r in cli_json("reminders", "list", "--search", "MILK")] == [
        "milk for the office"
    ]
    both = cli_json(
        "reminders", "list", "--search", "milk", "--status", "all", "--query", "[*].title"
    )
    assert sorted(both) == ["milk for the office", "oat milk"]


def test_an_empty_search_is_refused() -> None:
    result = runner.invoke(app, ["reminders", "list", "--search", "", "--json"])
    assert result.exit_code == 2
    assert "search" in json.loads(result.stdout)["error"]["message"]


def test_a_list_named_by_a_bare_string() -> None:
    _add("in the default list")
    found = cli_json("tools", "call", "query_reminders", "--args", '{"list": "reminders"}')
    assert [r["title"] for r in found] == ["in the default list"]
