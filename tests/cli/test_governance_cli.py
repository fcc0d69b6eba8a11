"""`fruitctl tools`, `fruitctl mode` and `fruitctl stats` as a person and a script use them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from searx_server import FakeSearx
from typer.testing import CliRunner

from fruitctl.cli.app import app
from fruitctl.tools.model import MODES

runner = CliRunner()


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args))


def test_tools_list_shows_every_tool() -> None:
    result = cli("tools", "list")
    assert result.exit_code == 0
    for name in ("query_reminders", "read_file", "write_file", "web_search", "read_system_logs"):
        assert name in result.stdout
    listed = json.loads(cli("tools", "list", "--json").stdout)
    write = next(t for t in listed if t["name"] == "write_file")
    assert write["category"] == "system_write" and write["allowed_modes"] == [
        "NORMAL",
        "ALERT",
        "DEGRADED",
        "RECOVERY",
    ]
    assert write["verdicts"] == {
        "NORMAL": "allow",
        "ALERT": "approve",
        "DEGRADED": "approve",
        "LOCKDOWN": "deny",
        "RECOVERY": "approve",
    }
    assert result.stdout.splitlines()[0].split() == ["NAME", "CATEGORY", "RISK", *MODES]
    create = next(
        line for line in result.stdout.splitlines() if line.startswith("create_reminders")
    )
    assert create.split()[3:] == ["approve", "approve", "approve", "deny", "approve"]
    only = json.loads(cli("tools", "list", "--category", "network", "--json").stdout)
    assert [t["name"] for t in only] == ["web_search", "fetch_url"]


def test_tools_call_prints_the_output() -> None:
    result = cli("tools", "call", "get_lists")
    assert result.exit_code == 0
    assert json.loads(result.stdout)[0]["name"] == "Reminders"
    made = cli(
        "tools",
        "call",
        "create_reminders",
        "--args",
        '{"reminders": [{"title": "from the cli"}]}',
        "--json",
    )
    assert made.exit_code == 0 and json.loads(made.stdout)[0]["title"] == "from the cli"


def test_tools_call_as_an_agent_files_a_proposal_a_person_approves() -> None:
    args = '{"reminders": [{"title": "x"}]}'
    result = cli("tools", "call", "create_reminders", "--as", "agent", "--args", args, "--json")
    assert result.exit_code == 6  # approval required: it has not happened yet
    pending = json.loads(result.stdout)
    assert pending["status"] == "pending"
    assert json.loads(cli("reminders", "list", "--json").stdout) == []
    listed = cli("proposals", "list", "--status", "pending")
    assert pending["proposalId"] in listed.stdout and "Create 1 reminder" in listed.stdout
    shown = cli("proposals", "show", pending["proposalId"])
    assert "new reminder 1" in shown.stdout and "PENDING" in shown.stdout
    approved = cli("proposals", "approve", pending["proposalId"])
    assert approved.exit_code == 0 and "EXECUTED" in approved.stdout
    assert [r["title"] for r in json.loads(cli("reminders", "list", "--json").stdout)] == ["x"]
    again = cli("proposals", "approve", pending["proposalId"])
    assert again.exit_code == 4 and "already EXECUTED" in again.stderr
    undo = cli("proposals", "undo", pending["proposalId"], "--json")
    undo_id = json.loads(undo.stdout)["proposalId"]
    assert cli("proposals", "approve", undo_id).exit_code == 0
    assert json.loads(cli("reminders", "list", "--json").stdout) == []
    assert cli("audit", "verify").exit_code == 0


def test_config_allowlists_from_the_cli() -> None:
    assert "(not set)" in cli("config", "get", "allowlist.reminders.lists").stdout
    cli("config", "set", "allowlist.reminders.lists", "Inbox,Errands")
    shown = json.loads(cli("config", "get", "allowlist.reminders.lists", "--json").stdout)
    assert shown == {"allowlist.reminders.lists": ["Inbox", "Errands"]}
    args = '{"reminders": [{"title": "x"}]}'
    refused = cli("tools", "call", "create_reminders", "--as", "agent", "--args", args)
    assert refused.exit_code == 5
    assert "Writes to list 'Reminders' are not permitted." in refused.stderr
    bad = cli("config", "set", "allowlist.nope", "x")
    assert bad.exit_code == 2 and "Unknown config key" in bad.stderr


def test_tools_call_errors() -> None:
    unknown = cli("tools", "call", "nope")
    assert unknown.exit_code == 2 and "Unknown tool 'nope'." in unknown.stderr
    bad_json = cli("tools", "call", "get_lists", "--args", "{oops")
    assert bad_json.exit_code == 2 and "--args is not valid JSON" in bad_json.stderr
    not_object = cli("tools", "call", "get_lists", "--args", "[1]")
    assert not_object.exit_code == 2 and "must be a JSON object" in not_object.stderr


def governance(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text(text)
    return home / "governance.yaml"


def test_no_approval_for_one_tool_shows_and_runs(home: Path) -> None:
    governance(home, "tools:\n  create_reminders: {requires_approval_in_modes: []}\n")
    listed = cli("tools", "list")
    create = next(
        line for line in listed.stdout.splitlines() if line.startswith("create_reminders")
    )
    assert create.split()[3:] == ["allow", "allow", "allow", "deny", "allow"]
    args = '{"reminders": [{"title": "x"}]}'
    made = cli("tools", "call", "create_reminders", "--as", "agent", "--args", args, "--json")
    assert made.exit_code == 0 and json.loads(made.stdout)[0]["title"] == "x"
    cli("mode", "set", "LOCKDOWN")
    refused = cli("tools", "call", "create_reminders", "--as", "agent", "--args", args)
    assert refused.exit_code == 5


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "tools:\n  create_reminders:\n    allowed_in_modes: [NORMAL]\n"
            "    requires_approval_in_modes: [NORMAL]\n",
            ":4: tools.create_reminders.requires_approval_in_modes: NORMAL also in allowed",
        ),
        (
            "tools:\n  web_search:\n    allowed_in_modes: []\n",
            ":3: tools.web_search.allowed_in_modes: leaves web_search refused in every mode; "
            "to turn a tool off on purpose, list every mode in forbidden_in_modes",
        ),
    ],
)
def test_contradicting_rules_refuse_to_start(home: Path, text: str, expected: str) -> None:
    path = governance(home, text)
    result = cli("tools", "list")
    assert result.exit_code == 78
    assert f"{path}{expected}" in " ".join(result.stderr.split())


def test_tools_show(home: Path) -> None:
    governance(
        home,
        "tools:\n  create_reminders: {requires_approval_in_modes: [], allowed_lists: [Errands]}\n",
    )
    shown = cli("tools", "show", "create_reminders")
    assert shown.exit_code == 0
    assert shown.stdout.startswith("create_reminders - Create reminders")
    assert "allowed_lists: Errands" in shown.stdout and "NORMAL allow" in shown.stdout
    assert '"reminders"' in shown.stdout  # the input schema
    data = json.loads(cli("tools", "show", "create_reminders", "--json").stdout)
    assert data["category"] == "pim_write" and data["risk_level"] == "medium"
    assert data["input_schema"]["required"] == ["reminders"]
    assert data["rules"] == {
        "category": "pim_write",
        "allowed_in_modes": ["NORMAL", "ALERT", "DEGRADED", "RECOVERY"],
        "forbidden_in_modes": ["LOCKDOWN"],
        "allowed_lists": ["Errands"],
    }
    assert data["verdicts"]["NORMAL"] == "allow" and data["verdicts"]["LOCKDOWN"] == "deny"
    unknown = cli("tools", "show", "nope")
    assert unknown.exit_code == 3
    assert "Unknown tool 'nope'. Tools: " in unknown.stderr and "create_reminders" in unknown.stderr
    as_json = json.loads(cli("tools", "show", "nope", "--json").stdout)
    assert as_json["error"]["code"] == "not_found"


@pytest.mark.process
def test_every_tool_can_be_called_from_the_cli(
    home: Path, monkeypatch: pytest.MonkeyPatch, searx: FakeSearx
) -> None:
    monkeypatch.setenv("FRUITCTL_WEB__PROVIDER", "searxng")
    monkeypatch.setenv("FRUITCTL_WEB__SEARXNG_URL", searx.url)
    workspace = home / "workspace"
    workspace.mkdir(parents=True)
    (workspace / "a.txt").write_text("alpha")
    calls = {
        "query_reminders": {},
        "get_lists": {},
        "open_reminders": {},
        "create_reminders": {"reminders": [{"title": "t"}]},
        "read_file": {"path": str(workspace / "a.txt")},
        "list_directory": {"path": str(workspace)},
        "write_file": {"path": str(workspace / "b.txt"), "content": "beta"},
        "system_metrics_snapshot": {},
        "check_process_health": {"pid": 1},
        "read_system_logs": {"since_minutes": 5, "lines": 5},
        "web_search": {"query": "fruit", "max_results": 3},
    }
    for name, args in calls.items():
        result = cli("tools", "call", name, "--args", json.dumps(args), "--json")
        payload = json.loads(result.stdout)
        # read_system_logs may be unsupported on a machine without a journal reader.
        assert result.exit_code == 0 or payload["error"]["code"] == "unsupported", (name, payload)
    created = json.loads(cli("reminders", "list", "--json").stdout)
    reminder_id = created[0]["id"]
    for name, args in {
        "get_reminder": {"id": reminder_id},
        "update_reminders": {"reminders": [{"id": reminder_id, "completed": True}]},
        "delete_reminders": {"ids": [reminder_id]},
    }.items():
        assert cli("tools", "call", name, "--args", json.dumps(args)).exit_code == 0, name
    assert (workspace / "b.txt").read_text() == "beta"
    assert any("format=json" in path for path in searx.paths)


def test_mode_get_and_set() -> None:
    shown = cli("mode")
    assert shown.exit_code == 0 and shown.stdout.startswith("NORMAL (default)")
    changed = cli("mode", "set", "lockdown", "--json")
    assert changed.exit_code == 0
    state = json.loads(changed.stdout)
    assert state["mode"] == "LOCKDOWN" and state["setBy"].startswith("human:cli:")
    assert cli("mode", "get").stdout.startswith("LOCKDOWN since ")
    refused = cli("reminders", "add", "--title", "x")
    assert refused.exit_code == 5
    assert "create_reminders is not allowed in LOCKDOWN mode." in refused.stderr
    bad = cli("mode", "set", "PANIC")
    assert bad.exit_code == 2 and "Unknown mode 'PANIC'" in bad.stderr


def test_stats_after_some_calls() -> None:
    cli("lists")
    cli("lists")
    cli("reminders", "list", "--list", "Reminders", "--all")  # refused by the tool
    rows = {r["tool"]: r for r in json.loads(cli("stats", "--json").stdout)}
    assert rows["get_lists"]["calls"] == 2
    assert rows["query_reminders"]["rejected"] == 1
    assert rows["query_reminders"]["failures"] == 0
    text = cli("stats", "--since", "1h")
    assert text.exit_code == 0 and "get_lists" in text.stdout
    assert cli("stats", "--since", "yesterday").exit_code == 2


def test_a_malformed_governance_file_refuses_to_start(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "governance.yaml").write_text("tools:\n  write_file:\n    allowed_in_modes: [NORML]\n")
    result = cli("reminders", "list")
    assert result.exit_code == 78
    assert f"{home / 'governance.yaml'}:3: tools.write_file.allowed_in_modes.0" in result.stderr
    assert "Traceback" not in result.stderr


def test_tools_call_reads_its_arguments_from_a_file_or_stdin(tmp_path: Path) -> None:
    body = tmp_path / "args.json"
    body.write_text(json.dumps({"reminders": [{"title": "from a file"}]}), encoding="utf-8")
    from_file = cli("tools", "call", "create_reminders", "--args", f"@{body}", "--json")
    assert from_file.exit_code == 0, from_file.output
    assert json.loads(from_file.stdout)[0]["title"] == "from a file"
    piped = runner.invoke(
        app,
        ["tools", "call", "query_reminders", "--args", "-", "--json"],
        input='{"query": "[].title"}',
    )
    assert piped.exit_code == 0, piped.output
    assert json.loads(piped.stdout) == ["from a file"]
    missing = cli("tools", "call", "get_lists", "--args", f"@{tmp_path / 'nope.json'}")
    assert missing.exit_code == 2
    assert "cannot read" in missing.stderr and "nope.json" in missing.stderr
    assert "Traceback" not in missing.stderr
