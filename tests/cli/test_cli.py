"""The CLI as a person and a script use it: text by default, exact JSON with --json, one-line
errors with stable exit codes, and nothing changed by bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app
from fruitctl.cli.output import CONFIG_ERROR, EXIT_CODES, EXIT_MEANINGS, PARTIAL_FAILURE
from fruitctl.domain.errors import FruitctlError
from fruitctl.startup import StartupError

runner = CliRunner()


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args))


def cli_json(*args: str) -> Any:
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def add(title: str, *extra: str) -> dict[str, Any]:
    created = cli_json("reminders", "add", "--title", title, *extra)
    assert created["status"] == "done" and len(created["created"]) == 1
    return dict(created["created"][0])


def store_snapshot() -> list[dict[str, Any]]:
    return bootstrap.build().reminders.query_reminders(
        {"list": {"all": True}, "status": "all", "limit": 200}
    )


@pytest.mark.parametrize(
    "command",
    [
        [],
        ["lists"],
        ["demo"],
        ["reminders"],
        *[
            ["reminders", sub]
            for sub in (
                "list",
                "get",
                "add",
                "update",
                "edit",
                "complete",
                "uncomplete",
                "delete",
                "open",
            )
        ],
    ],
)
def test_every_command_has_help(command: list[str]) -> None:
    result = cli(*command, "--help")
    assert result.exit_code == 0
    assert "Usage:" in result.stdout


def test_version() -> None:
    result = cli("--version")
    assert result.exit_code == 0
    assert result.stdout.startswith("fruitctl ")


def test_a_new_store_has_the_default_list(home: Path) -> None:
    result = cli("lists")
    assert result.exit_code == 0
    assert "Reminders (default)" in result.stdout
    assert (home / "local.db").exists()
    lists = cli_json("lists")
    assert [(lst["name"], lst["isDefault"], lst["count"]) for lst in lists] == [
        ("Reminders", True, 0)
    ]


def test_demo_fills_an_empty_store_once() -> None:
    first = cli("demo")
    assert first.exit_code == 0 and "Added" in first.stdout
    listed = cli_json("lists")
    # The store's own default list is the inbox (listed first: where a GTD user's new things
    # land), so no empty list is left beside the sample's.
    assert [lst["name"] for lst in listed] == ["Reminders", "Work", "Personal", "Errands"]
    assert [lst["isDefault"] for lst in listed] == [True, False, False, False]
    assert all(lst["count"] > 0 for lst in listed)
    assert add("captured")["listName"] == "Reminders"
    before = store_snapshot()
    assert cli_json("demo") == {
        "seeded": False,
        "reason": "the store already holds reminders",
        "lists": [],
        "created": 0,
        "events": 0,  # the calendar already holds the sample week too
    }
    assert store_snapshot() == before


def test_demo_has_the_gtd_shapes() -> None:
    cli("demo")
    items = cli_json("reminders", "open")["items"]
    tags = {tag for item in items for tag in item["tags"]}
    assert {"@calls", "@errands", "next", "waiting"} <= tags
    assert any(item["isFlagged"] for item in items)
    dues = [item["dueAt"] for item in items if item["dueAt"]]
    assert any(len(due) == 10 for due in dues)  # date-only
    assert any(due.endswith("+01:00") for due in dues)  # timed, Europe/Rome offset
    done = cli_json("reminders", "list", "--all", "--status", "completed")
    assert done, "the demo includes completed reminders"


def test_add_with_every_option_then_get() -> None:
    cli("demo")
    added = add(
        "Call the bank",
        "--list",
        "work",
        "--due",
        "2026-03-02T09:30",
        "--priority",
        "high",
        "--notes",
        "about the mortgage",
        "--tag",
        "@calls",
        "--tag",
        "next",
        "--flagged",
        "--url",
        "https://bank.example",
    )
    got = cli_json("reminders", "get", added["id"])
    assert got == added
    assert (got["listName"], got["dueDate"], got["priority"]) == (
        "Work",
        "2026-03-02T09:30:00+01:00",
        1,
    )
    assert (got["tags"], got["isFlagged"], got["url"]) == (
        ["@calls", "next"],
        True,
        "https://bank.example",
    )
    text = cli("reminders", "get", added["id"])
    assert text.exit_code == 0
    assert "Call the bank !!! ⚑" in text.stdout and "2026-03-02 09:30" in text.stdout


def test_a_date_only_due_stays_a_date() -> None:
    added = add("Pay rent", "--due", "2026-03-01")
    assert added["dueDate"] == "2026-03-01"


def test_list_json_is_the_exact_service_result() -> None:
    cli("demo")
    for options in (
        [],
        ["--list", "Work", "--sort", "priority"],
        ["--all", "--status", "all", "--limit", "5"],
        ["--all", "--sort", "dueDate"],
        ["--list-id", cli_json("lists")[2]["id"]],
        ["--all", "--query", "[?contains(tags, 'next')].title"],
    ):
        shown = cli_json("reminders", "list", *options)
        args: dict[str, Any] = {}
        if "--list" in options:
            args["list"] = {"name": "Work"}
        if "--list-id" in options:
            args["list"] = {"id": options[1]}
        if "--all" in options:
            args["list"] = {"all": True}
        for flag, key in (("--status", "status"), ("--sort", "sortBy"), ("--query", "query")):
            if flag in options:
                args[key] = options[options.index(flag) + 1]
        if "--limit" in options:
            args["limit"] = int(options[options.index("--limit") + 1])
        assert shown == bootstrap.build().reminders.query_reminders(args), options


def test_list_text_is_an_aligned_table() -> None:
    add("First thing")
    add("Second thing", "--due", "2020-01-01")
    result = cli("reminders", "list")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["TITLE", "LIST", "DUE", "TAGS", "ID"]
    assert "Second thing" in lines[1] and "First thing" in lines[2]  # newest first
    assert lines[1].index("Reminders") == lines[2].index("Reminders")  # aligned columns


def test_projection_results_are_shown_as_json() -> None:
    add("Alpha")
    result = cli("reminders", "list", "--query", "[*].title")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == ["Alpha"]


def test_edit_changes_only_what_is_given() -> None:
    before = add("Old title", "--due", "2026-03-01", "--notes", "keep me", "--tag", "x")
    (after,) = cli_json("reminders", "update", before["id"], "--title", "New title", "--clear-due")[
        "updated"
    ]
    assert after["title"] == "New title"
    assert after["dueDate"] is None
    assert (after["notes"], after["tags"]) == ("keep me", ["x"])
    flagged = cli_json("reminders", "edit", before["id"], "--flagged", "true", "--clear-tags")
    assert (flagged["updated"][0]["isFlagged"], flagged["updated"][0]["tags"]) == (True, [])


def test_edit_without_changes_is_an_error() -> None:
    item = add("Anything")
    result = cli("reminders", "edit", item["id"])
    assert result.exit_code == 2
    assert "Nothing to change" in result.stderr


def test_complete_uncomplete_and_partial_failure() -> None:
    a, b = add("a"), add("b")
    done = cli("reminders", "complete", a["id"], b["id"], "missing-id")
    assert done.exit_code == 1
    assert "Completed:" in done.stdout
    assert "failed: missing-id: No reminder found with ID: 'missing-id'." in done.stderr
    assert cli_json("reminders", "list") == []
    (again,) = cli_json("reminders", "uncomplete", a["id"])["updated"]
    assert again["isCompleted"] is False and again["completionDate"] is None


def test_delete_reports_what_it_deleted_and_what_failed() -> None:
    a = add("a")
    result = cli("reminders", "delete", a["id"], "nope", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "status": "partial",
        "deleted": [a["id"]],
        "failed": [{"id": "nope", "error": "No reminder found with ID: 'nope'."}],
    }
    assert cli_json("reminders", "list") == []


def test_open_view_and_its_options() -> None:
    add("dated", "--due", "2026-03-01")
    add("undated")
    everything = cli_json("reminders", "open")
    assert [i["title"] for i in everything["items"]] == ["dated", "undated"]
    dated = cli_json("reminders", "open", "--include-no-due-date", "false", "--limit", "1")
    assert [i["title"] for i in dated["items"]] == ["dated"] and dated["count"] == 1
    text = cli("reminders", "open")
    assert "2 open" in text.stdout


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["reminders", "list", "--list", "Nope"],
            3,
            "No list found with name: 'Nope'. Available lists: Reminders.",
        ),
        (
            ["reminders", "list", "--list", "Reminders", "--all"],
            2,
            "List selector must specify exactly one of: 'id', 'name', or 'all'.",
        ),
        (
            ["reminders", "list", "--query", "[?priority = `1`]"],
            2,
            "Hint: Use '==' for equality, not '='.",
        ),
        (["reminders", "list", "--limit", "500"], 2, "Invalid value for '--limit'"),
        (["reminders", "get", "abc123"], 3, "No reminder found with ID: 'abc123'."),
        (
            ["reminders", "add", "--title", "x", "--due", "01-15-2024"],
            2,
            "Invalid date format: '01-15-2024'. Expected ISO 8601 format like",
        ),
        (["reminders", "add", "--title", "   "], 2, "'title' must not be empty."),
        (
            ["reminders", "add", "--title", "x", "--priority", "urgent"],
            2,
            "Invalid priority: 'urgent'. Must be one of: none, low, medium, high.",
        ),
        (
            ["reminders", "update", "abc", "--priority", "Top"],
            2,
            "Invalid priority: 'Top'. Must be one of: none, low, medium, high.",
        ),
    ],
)
def test_errors_are_one_line_with_an_exit_code(args: list[str], code: int, message: str) -> None:
    result = cli(*args)
    assert result.exit_code == code
    assert result.stdout == ""
    assert message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    as_json = cli(*args, "--json")
    assert as_json.exit_code == code
    error = json.loads(as_json.stdout)["error"]
    assert message in error["message"]
    assert error["code"] in ("invalid_params", "not_found")


def test_bad_input_changes_nothing() -> None:
    add("existing")
    before = store_snapshot()
    assert cli("reminders", "add", "--title", "x", "--due", "tomorrow").exit_code == 2
    assert cli("reminders", "add", "--title", "x", "--list", "Nope").exit_code == 3
    assert cli("reminders", "edit", before[0]["id"], "--due", "soon").exit_code == 2
    assert store_snapshot() == before


def test_a_bad_config_file_names_the_key(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[reminders]\nbackend = "local"\npreview = 3\n')
    result = cli("lists")
    assert result.exit_code == 78
    assert "reminders.preview" in result.stderr and "unknown key" in result.stderr
    assert "Traceback" not in result.stderr
    (home / "config.toml").write_text("[reminders\n")
    broken = cli("lists", "--json")
    assert broken.exit_code == 78
    assert "not valid TOML" in json.loads(broken.stdout)["error"]["message"]


def test_help_lists_the_exit_codes() -> None:
    shown = cli("--help")
    assert shown.exit_code == 0
    text = " ".join(shown.stdout.split())
    for phrase in ("Exit codes: 0 done", "2 invalid input", "3 not found", "78 bad configuration"):
        assert phrase in text
    assert "--install-completion" in shown.stdout


def test_every_error_has_its_own_documented_exit_code() -> None:
    codes = {cls.code for cls in _subclasses(FruitctlError)}
    assert codes <= set(EXIT_CODES), codes - set(EXIT_CODES)
    starting = {cls.exit_code for cls in {StartupError, *_subclasses(StartupError)}}
    statuses = {*EXIT_CODES.values(), *starting, 0, PARTIAL_FAILURE, CONFIG_ERROR}
    assert statuses == set(EXIT_MEANINGS)
    # The README's table lists the same statuses with the same words.
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    table = readme.split("| exit | meaning |")[1].split("\n\n")[0]
    rows = [line.split("|")[1:3] for line in table.splitlines() if line.startswith("| ")]
    assert {int(code): text.strip() for code, text in rows} == EXIT_MEANINGS


def _subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    return found.union(*(_subclasses(c) for c in found))


def test_approving_an_expired_proposal_exits_11(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRUITCTL_APPROVALS__TTL_HOURS", str(0.3 / 3600))
    args = '{"reminders": [{"title": "x"}]}'
    filed = cli("tools", "call", "create_reminders", "--as", "agent", "--args", args, "--json")
    pending = json.loads(filed.stdout)
    time.sleep(0.4)
    late = cli("proposals", "approve", pending["proposalId"])
    assert late.exit_code == 11, late.output
    assert "expired" in late.stderr and "Traceback" not in late.stderr


@pytest.mark.process
def test_bash_completion_completes_commands_and_subcommands(home: Path) -> None:
    fruitctl = Path(sys.executable).with_name("fruitctl")

    def complete(*words: str) -> list[str]:
        env = {
            **os.environ,
            "_FRUITCTL_COMPLETE": "complete_bash",
            "COMP_WORDS": " ".join(["fruitctl", *words]),
            "COMP_CWORD": str(len(words)),
        }
        done = subprocess.run([fruitctl], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert complete("rem") == ["reminders"]
    assert complete("reminders", "up") == ["update"]
    assert "--json" in complete("reminders", "list", "--j")
    # Typed in a bash (the command detects its shell from its parent, whoever runs pytest).
    typed = [shutil.which("bash") or "bash", "-c", '"$0" --show-completion; exit $?', fruitctl]
    script = subprocess.run(typed, capture_output=True, text=True, timeout=60)
    assert "_FRUITCTL_COMPLETE=complete_bash" in script.stdout


def test_auth_list_is_a_table_with_a_header() -> None:
    assert "No tokens" in cli("auth", "list").stdout
    agent = cli_json("auth", "token", "--name", "claude@laptop")
    cli_json("auth", "token", "--name", "me", "--scope", "admin")
    assert cli("auth", "revoke", agent["id"]).exit_code == 0
    lines = cli("auth", "list").stdout.splitlines()
    assert lines[0].split() == ["ID", "SCOPE", "NAME", "EXPIRES", "STATE", "TOOLS"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert "claude@laptop" in rows[agent["id"]] and rows[agent["id"]].split()[-2:] == [
        "revoked",
        "all",
    ]
    listed = cli_json("auth", "list")
    assert {t["name"] for t in listed} == {"claude@laptop", "me"}


def test_a_bug_is_one_line_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    from fruitctl.services.demo import DemoService

    def broken(self: DemoService, **_: Any) -> dict[str, Any]:
        raise KeyError("Reminders")

    monkeypatch.setattr(DemoService, "seed", broken)
    shown = cli("demo")
    assert shown.exit_code == 70
    assert shown.stderr.count("\n") == 1 and "Traceback" not in shown.output
    assert "KeyError: 'Reminders'" in shown.stderr and "FRUITCTL_DEBUG=1" in shown.stderr
    monkeypatch.setenv("FRUITCTL_DEBUG", "1")
    assert isinstance(cli("demo").exception, KeyError)
