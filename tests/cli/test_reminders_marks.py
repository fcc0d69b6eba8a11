"""The marks of a reminders table read without colour: an overdue due date says so, and a
one-line legend under the table says what each mark shown means (only when one is shown)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from fruitctl.cli.app import app

runner = CliRunner()


def _add(title: str, *extra: str) -> str:
    result = runner.invoke(app, ["reminders", "add", "--title", title, *extra, "--json"])
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["created"][0]["id"])


def _table(*args: str) -> list[str]:
    result = runner.invoke(app, ["reminders", *args])
    assert result.exit_code == 0, result.output
    return [line.rstrip() for line in result.stdout.splitlines()]


def test_overdue_is_written_beside_the_date_and_explained() -> None:
    _add("pay rent", "--due", "2020-01-01", "--priority", "high", "--flagged")
    _add("later", "--due", "2999-01-01")
    lines = _table("list")
    (rent,) = [line for line in lines if "pay rent" in line]
    assert "pay rent !!! ⚑" in rent and "2020-01-01 overdue" in rent
    (later,) = [line for line in lines if "later" in line]
    assert "overdue" not in later
    assert lines[-1] == "!!! high · ⚑ flagged · overdue: due date passed, not done"


def test_the_legend_names_only_the_marks_shown() -> None:
    _add("call mom", "--priority", "medium")
    assert _table("list")[-1] == "!! medium"
    assert _table("open")[-2] == "!! medium"  # the open view's count comes last


def test_no_mark_no_legend() -> None:
    done = _add("old bill", "--due", "2020-01-01")
    runner.invoke(app, ["reminders", "complete", done])
    _add("plain")
    lines = _table("list", "--status", "all")
    assert not [line for line in lines if "overdue" in line or "·" in line]
    assert "plain" in lines[-1] or "old bill" in lines[-1]
