"""``fruitctl auth token --tools``: the token carries its tool set (signed in it, and recorded for
``auth list``); a name that is neither a set nor a tool makes no token."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app
from fruitctl.transports.http.tokens import TokenStore, secrets_dir

runner = CliRunner()
CONTRACT = ["create_reminders", "delete_reminders", "get_lists", "query_reminders"]
CONTRACT += ["update_reminders"]


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args))


def test_a_token_made_with_tools_carries_them() -> None:
    made = cli("auth", "token", "--name", "phone", "--tools", "reminders,get_reminder", "--json")
    assert made.exit_code == 0, made.output
    issued = json.loads(made.stdout)
    assert issued["tools"] == sorted([*CONTRACT, "get_reminder"])
    store = TokenStore(secrets_dir(bootstrap.build()))
    assert store.verify(issued["token"]).tools == {*CONTRACT, "get_reminder"}
    listed = json.loads(cli("auth", "list", "--json").stdout)
    assert [t["tools"] for t in listed] == [issued["tools"]]
    row = cli("auth", "list").stdout.splitlines()[1]
    assert row.split()[0] == issued["id"] and "create_reminders," in row


def test_a_token_without_tools_offers_every_tool() -> None:
    issued = json.loads(cli("auth", "token", "--json").stdout)
    assert issued["tools"] is None
    assert TokenStore(secrets_dir(bootstrap.build())).verify(issued["token"]).tools is None
    assert cli("auth", "list").stdout.splitlines()[1].split()[-2:] == ["active", "all"]


def test_an_unknown_name_makes_no_token() -> None:
    made = cli("auth", "token", "--tools", "reminders,calender")
    assert made.exit_code != 0
    assert "'calender' is neither a tool set nor a tool" in made.output
    assert "Tool sets: reminders, calendar" in made.output
    assert "No tokens" in cli("auth", "list").stdout
