"""delete_file from the command line as a person types it: an agent's call files a proposal,
``proposals show`` says what would go, ``proposals approve`` deletes and ``proposals undo`` plus
an approval put the file back; a folder is refused in one clear line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from fruitctl.cli.app import app

runner = CliRunner()


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args))


def test_delete_show_approve_and_undo_from_the_cli(home: Path) -> None:
    workspace = home / "workspace"
    workspace.mkdir(parents=True)
    target = workspace / "list.txt"
    target.write_text("eggs\nmilk\n")
    args = json.dumps({"path": str(target)})
    filed = cli("tools", "call", "delete_file", "--as", "agent", "--args", args, "--json")
    assert filed.exit_code == 6, filed.output  # approval required: a proposal was filed
    proposal = json.loads(filed.stdout)["proposalId"]
    shown = cli("proposals", "show", proposal)
    assert shown.exit_code == 0, shown.output
    assert "eggs" in shown.stdout and "possible for 24 hours" in shown.stdout
    assert target.exists()

    approved = cli("proposals", "approve", proposal)
    assert approved.exit_code == 0, approved.output
    assert not target.exists()
    undo = cli("proposals", "undo", proposal, "--json")
    assert undo.exit_code in (0, 6), undo.output
    again = cli("proposals", "approve", json.loads(undo.stdout)["proposalId"])
    assert again.exit_code == 0, again.output
    assert target.read_text() == "eggs\nmilk\n"


def test_the_cli_refuses_a_folder_in_one_line(home: Path) -> None:
    folder = home / "workspace" / "sub"
    folder.mkdir(parents=True)
    args = json.dumps({"path": str(folder)})
    refused = cli("tools", "call", "delete_file", "--args", args)
    assert refused.exit_code != 0
    assert "is a folder, and delete_file deletes files only" in refused.stderr
    assert "Traceback" not in refused.stderr and folder.is_dir()
