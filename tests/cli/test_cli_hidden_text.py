"""The CLI prints what agents and other apps wrote as text with its hidden characters shown: a
bidi override, a zero-width space, a C1 control or a terminal escape in a title, a note or an
actor is a ``[U+…]`` marker in ``proposals list`` and ``show``, the reminder views and errors -
never the raw character (nor markup), so it can neither disguise a proposal nor drive the
terminal - and a proposal holding one is flagged, as on the approval page. ``--json`` stays
exact."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app
from fruitctl.domain.actors import Actor

runner = CliRunner()
FLAG = "⚠"
WARNING = "invisible or direction-changing characters"
SPOOF = "Pay \u202e001\u2066\u200b\u2060\ufeff\x85\x9b\x1b[2J[bold]x[/bold]"
RAW = ("\u202e", "\u2066", "\u200b", "\u2060", "\ufeff", "\x85", "\x9b", "\x1b")


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args))


def assert_revealed(output: str, whole: bool = True) -> None:
    """No hidden character raw; each as its marker (``whole``: a table may cut a long cell)."""
    for char in RAW:
        assert char not in output
    for marker in ("[U+202E]", "[U+2066]", "[U+200B]", "[U+2060]", "[U+FEFF]", "[U+0085]"):
        assert marker in output
    if whole:
        for marker in ("[U+009B]", "[U+001B]"):
            assert marker in output
        assert "[bold]x[/bold]" in output  # printed as written, not read as markup


def test_a_plain_proposal_is_not_flagged() -> None:
    created = json.loads(cli("reminders", "add", "--title", "plain", "--json").stdout)["created"][0]
    note = json.dumps({"reminders": [{"id": created["id"], "notes": "two\nlines\tand a tab"}]})
    filed = cli("tools", "call", "update_reminders", "--as", "agent", "--args", note, "--json")
    listed, shown = (
        cli("proposals", "list"),
        cli("proposals", "show", json.loads(filed.stdout)["proposalId"]),
    )
    assert "plain" in listed.stdout and "plain" in shown.stdout
    for output in (listed.stdout, listed.stderr, shown.stdout):
        assert FLAG not in output and "[U+" not in output  # line breaks and tabs are layout


def filed_by_a_crafted_actor() -> str:
    built = bootstrap.build()
    try:
        args = {"reminders": [{"title": "plain"}]}
        filed = built.gateway.invoke("create_reminders", args, Actor("agent", SPOOF))
        return str(filed.output["proposalId"])
    finally:
        built.close()


def test_proposals_list_and_show_reveal_the_actor() -> None:
    proposal = filed_by_a_crafted_actor()
    listed = cli("proposals", "list")
    assert listed.exit_code == 0, listed.output
    assert_revealed(listed.stdout, whole=False)
    assert f"{FLAG} Create 1 reminder" in listed.stdout and WARNING in listed.stderr
    shown = cli("proposals", "show", proposal)
    assert shown.exit_code == 0, shown.output
    assert_revealed(shown.stdout)
    assert f"{FLAG} This proposal holds {WARNING}" in shown.stdout
    exact = json.loads(cli("proposals", "show", proposal, "--json").stdout)
    assert exact["actor"] == f"agent:{SPOOF}"


def test_a_title_another_app_wrote_is_revealed_in_views_and_diffs() -> None:
    created = json.loads(cli("reminders", "add", "--title", "plain", "--json").stdout)["created"][0]
    built = bootstrap.build()
    with sqlite3.connect(built.config.paths.local_db) as db:  # e.g. synced from a shared list
        db.execute(
            "UPDATE reminders SET title = ?, notes = ? WHERE id = ?", (SPOOF, "a\nb", created["id"])
        )
    built.close()
    for view in (["reminders", "list"], ["reminders", "get", created["id"]]):
        result = cli(*view)
        assert result.exit_code == 0, result.output
        assert_revealed(result.stdout)
    note = cli("reminders", "get", created["id"]).stdout  # a note keeps its lines
    assert "[U+000A]" not in note and any(line.strip() == "b" for line in note.splitlines())
    args = json.dumps({"reminders": [{"id": created["id"], "title": "Pay 100"}]})
    filed = cli("tools", "call", "update_reminders", "--as", "agent", "--args", args, "--json")
    assert_revealed(cli("proposals", "show", json.loads(filed.stdout)["proposalId"]).stdout)


def test_an_error_quoting_what_an_agent_sent_is_revealed() -> None:
    result = cli("reminders", "list", "--list", SPOOF)
    assert result.exit_code == 3, result.output
    assert_revealed(result.stderr)


def test_config_values_are_printed_as_written() -> None:
    value = json.dumps(["[bold]Inbox[/bold]\u200b"])
    for result in (
        cli("config", "set", "allowlist.reminders.lists", value),
        cli("config", "get", "allowlist.reminders.lists"),
    ):
        assert result.exit_code == 0, result.output
        assert "[bold]Inbox[/bold][U+200B]" in result.stdout and "\u200b" not in result.stdout
