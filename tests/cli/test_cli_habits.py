"""The CLI's habits, walked over every command: ``-h`` everywhere, help listings that are
never cut mid-sentence, values named by words in every usage line, and usage mistakes in
``--json`` mode answered as the same JSON error object as every other error."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer.main
from typer import _click as click
from typer.testing import CliRunner

from fruitctl.cli.app import app
from fruitctl.cli.output import EXIT_CODES

runner = CliRunner()
WIDTH = 80  # a plain terminal: the narrowest a help listing is read at


def _commands() -> Iterator[list[str]]:
    """The path of every visible command and group, the root included."""

    def walk(command: click.Command, path: list[str]) -> Iterator[list[str]]:
        yield path
        group = getattr(command, "list_commands", None)
        if group is None:
            return
        context = click.Context(command)
        for name in group(context):
            sub = command.get_command(context, name)  # type: ignore[attr-defined]
            if sub is not None and not sub.hidden:
                yield from walk(sub, [*path, name])

    yield from walk(typer.main.get_command(app), [])


COMMANDS = list(_commands())


def _help(path: list[str], flag: str = "--help") -> str:
    result = runner.invoke(app, [*path, flag], terminal_width=WIDTH)
    assert result.exit_code == 0, (path, result.output)
    return str(result.stdout)


def test_the_walk_sees_every_command() -> None:
    assert len(COMMANDS) > 50
    assert ["reminders", "complete"] in COMMANDS and ["calendar", "create"] in COMMANDS


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "fruitctl")
def test_dash_h_is_help_everywhere(path: list[str]) -> None:
    assert _help(path, "-h") == _help(path)
    assert "-h, --help" in _help(path)


def test_no_help_line_is_cut_mid_sentence() -> None:
    for path in COMMANDS:
        lines = _help(path).splitlines()
        listing = lines[lines.index("Commands:") + 1 :] if "Commands:" in lines else []
        assert not [line for line in listing if line.rstrip().endswith("...")], path
    # The long first sentences are there in full, wrapped.
    listing = " ".join(_help(["reminders"]).split())
    assert "the default list's open ones, newest first, unless told otherwise." in listing


# Typer's own renderings of a value: {name} for a required argument, [name] for an optional
# one (in the usage line), <str>, <int>, <list[str]> for a type (anywhere).
TYPER_ARGUMENT = re.compile(r"\{\w+\}|\[[a-z_]+\]")
PYTHON_TYPE = re.compile(r"<(str|int|float|bool|list\[\w+\])>")


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "fruitctl")
def test_values_are_named_by_words(path: list[str]) -> None:
    page = _help(path)
    usage = page.splitlines()[0]
    assert usage.startswith("Usage: fruitctl")
    assert not TYPER_ARGUMENT.search(usage), usage
    assert not PYTHON_TYPE.search(page), page
    arguments = page.split("Arguments:")[1].split("Options:")[0] if "Arguments:" in page else ""
    for line in arguments.splitlines():
        if re.match(r"  \S", line):  # an entry (not its wrapped help)
            assert re.match(r"  [A-Z][A-Z_]*(\.\.\.)?\s", line), line


def test_the_words_read_as_the_values() -> None:
    assert _help(["reminders", "complete"]).splitlines()[0].endswith("[OPTIONS] ID...")
    assert _help(["config", "get"]).splitlines()[0].endswith("[OPTIONS] [KEY]")
    assert "--list LIST " in _help(["reminders", "add"])
    assert "--status <incomplete|completed|all>" in _help(["reminders", "list"])


def _json_error(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == EXIT_CODES["invalid_params"] == 2, result.output
    body = json.loads(result.stdout)
    assert set(body) == {"error"} and body["error"]["code"] == "invalid_params"
    return dict(body["error"])


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["reminders", "list", "--bogus"], "No such option: --bogus"),
        (["reminders", "list", "--limit", "many"], "Invalid value for '--limit'"),
        (["reminders", "list", "--status", "done"], "Invalid value for '--status'"),
        (["reminders", "add"], "Missing option '--title'"),
        (["reminders", "complete"], "Missing argument 'ID...'"),
        (["reminders", "finish"], "No such command 'finish'"),
        (["--bogus"], "No such option: --bogus"),
    ],
)
def test_usage_errors_in_json_mode_are_json(args: list[str], words: str) -> None:
    error = _json_error(*args)
    assert words in error["message"]
    assert "--help` shows the usage" in error["message"]


def test_the_same_usage_error_has_the_shape_of_any_other_error() -> None:
    """A usage error and a service's invalid_params read alike: only the message differs."""
    usage = _json_error("reminders", "list", "--bogus")
    service = _json_error("reminders", "list", "--list", "Reminders", "--all")  # the tool refuses
    assert {"code", "message"} == set(usage) <= set(service)


def test_usage_errors_without_json_stay_clicks() -> None:
    result = runner.invoke(app, ["reminders", "list", "--bogus"])
    assert result.exit_code == 2
    assert result.stdout == "" and "No such option: --bogus" in result.stderr
    assert "Usage: fruitctl reminders list [OPTIONS]" in result.stderr
