"""What a person sees when a database cannot be used, or another process is writing it: a stable
exit status and a line naming the file - never 70 "this is a bug" - and read-only commands keep
working while another process holds the write lock. Real files, a real second connection."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.cli.app import app
from fruitctl.cli.output import CONFIG_ERROR
from fruitctl.domain.actors import Actor

AGENT = Actor("agent", "test-agent")


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"FRUITCTL_IN_PROCESS": "1"})


@pytest.mark.slow
def test_proposals_list_works_while_another_process_holds_the_write_lock(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A proposal past its time: listing wants to mark it EXPIRED, a write the lock refuses.
    monkeypatch.setenv("FRUITCTL_APPROVALS__TTL_HOURS", str(0.2 / 3600))
    filer = bootstrap.build()
    filed = filer.gateway.invoke("create_reminders", {"reminders": [{"title": "x"}]}, AGENT)
    filer.close()
    assert filed.success
    time.sleep(0.3)  # past its time
    holder = sqlite3.connect(home / "state.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        listed = cli("proposals", "list", "--json")
        audit = cli("audit", "--json")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert listed.exit_code == 0, listed.output
    assert [p["id"] for p in json.loads(listed.stdout)] == [filed.output["proposalId"]]
    assert audit.exit_code == 0, audit.output


def test_a_garbage_store_is_a_configuration_error_naming_the_file(home: Path) -> None:
    home.mkdir(parents=True)
    (home / "local.db").write_bytes(os.urandom(8192))
    shown = cli("lists")
    assert shown.exit_code == CONFIG_ERROR, shown.output
    assert str(home / "local.db") in " ".join(shown.output.split())
    assert "bug" not in shown.output
    as_json = json.loads(cli("lists", "--json").stdout)
    assert as_json["error"]["code"] == "storage_fault"


def test_a_garbage_state_db_is_reported_by_doctor_not_a_crash(home: Path) -> None:
    home.mkdir(parents=True)
    (home / "state.db").write_bytes(os.urandom(8192))
    found = cli("doctor", "--json")
    assert found.exit_code == 1, found.output  # problems found, not 70
    report = json.loads(found.stdout)
    state = report["stores"]["state"]
    assert state["state"] == "broken" and state["error"]["code"] == "storage_fault"
    assert state["error"]["details"]["file"] == str(home / "state.db")
    assert report["healthy"] is False
