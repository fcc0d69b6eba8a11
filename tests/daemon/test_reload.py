"""What runs is what you see (issue 28, item 2): a running daemon reads governance.yaml again when
it changes - wholly, or not at all - and a file that does not load keeps the rules in force and
says so, with file:line, in ``system.info``, ``fruitctl info``, ``tools list``, ``doctor`` and
the log. A changed config.toml is never applied live; every view names the keys and how to
restart. Through the doors a user and an agent use: a real daemon, its socket, the CLI."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from socket_daemon import Daemon, Raw, cli, running, short_home

pytestmark = pytest.mark.slow  # most of its tests take two seconds or more

ALLOW_CREATE = "tools:\n  create_reminders:\n    requires_approval_in_modes: []\n"
# The first tool's rule is valid and would allow direct writes; the second's mode is not one.
LOG_DEADLINE_S = 30.0
HALF_BROKEN = (
    "tools:\n"
    "  create_reminders:\n    requires_approval_in_modes: []\n"
    "  update_reminders:\n    requires_approval_in_modes: [NORML]\n"
)


@pytest.fixture
def daemon() -> Iterator[Daemon]:
    with short_home() as home, running(home) as served:
        yield served


def create(daemon: Daemon, title: str) -> dict[str, Any]:
    """An agent's create_reminders on the person's socket (no token: an agent)."""
    with Raw(daemon.socket) as rpc:
        arguments = {"reminders": [{"title": title}]}
        result: dict[str, Any] = rpc.result(
            "tools.call", {"name": "create_reminders", "arguments": arguments}
        )
    return result


def info(daemon: Daemon) -> dict[str, Any]:
    with Raw(daemon.socket) as rpc:
        found: dict[str, Any] = rpc.result("system.info")
    return found


def save(path: Path, text: str) -> None:
    """Write ``text`` so that the file's stamp surely changes (a new inode, like an editor's
    save by rename): never left to the clock's resolution."""
    staged = path.with_suffix(".new")
    staged.write_text(text)
    os.replace(staged, path)


def log_events(home: Path, until: str) -> list[dict[str, Any]]:
    """The daemon's log once it holds an ``until`` event (its writer flushes every moment, on
    a thread of its own: waited for, up to a deadline far past that)."""
    deadline = time.monotonic() + LOG_DEADLINE_S
    while True:
        text = (home / "logs" / "fruitctl.log").read_text()
        events = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
        if any(e["event"] == until for e in events) or time.monotonic() > deadline:
            return events
        time.sleep(0.1)


def test_a_changed_governance_file_rules_the_next_call(daemon: Daemon) -> None:
    assert create(daemon, "Before")["status"] == "pending"  # the default: a person approves
    save(daemon.home / "governance.yaml", ALLOW_CREATE)
    with Raw(daemon.socket) as rpc:  # a listing, before any call, shows the new rules
        tools = {t["name"]: t for t in rpc.result("tools.list")["tools"]}
    assert tools["create_reminders"]["requiresApproval"] is False
    assert "status" not in create(daemon, "After")  # done at once: the new rules
    listed = cli(daemon.home, "tools", "list", "--json")
    verdicts = {t["name"]: t["verdicts"] for t in json.loads(listed.stdout)}
    assert verdicts["create_reminders"]["NORMAL"] == "allow"
    assert listed.stderr == ""  # nothing to warn of: the daemon runs what the file says
    (daemon.home / "governance.yaml").unlink()  # no file: the defaults again
    assert create(daemon, "Defaults")["status"] == "pending"
    assert "governance_reloaded" in {
        e["event"] for e in log_events(daemon.home, "governance_reloaded")
    }


def test_a_broken_governance_file_keeps_the_rules_in_force_and_says_so(daemon: Daemon) -> None:
    save(daemon.home / "governance.yaml", ALLOW_CREATE)
    assert "status" not in create(daemon, "Allowed")
    rules = daemon.home / "governance.yaml"
    save(rules, HALF_BROKEN)
    # Nothing of the broken file is in force, not even its valid first half.
    assert "status" not in create(daemon, "Still allowed")
    with Raw(daemon.socket) as rpc:
        tools = {t["name"]: t for t in rpc.result("tools.list")["tools"]}
    assert tools["update_reminders"]["requiresApproval"] is True
    said = info(daemon)["governance"]
    assert said["error"].startswith(f"{rules}:5: tools.update_reminders.")
    assert "'NORML' is not one of" in said["error"]
    # The views that show policy or state say which rules run, and why the file's do not.
    shown = cli(daemon.home, "info")
    assert shown.returncode == 0, shown.stderr
    assert "NOT IN FORCE" in shown.stdout
    assert "The daemon keeps the rules it loaded at" in shown.stdout
    assert f"{rules}:5:" in shown.stdout
    listed = cli(daemon.home, "tools", "list")
    assert listed.returncode == 0, listed.stderr
    assert "! The daemon keeps the rules" in listed.stderr and f"{rules}:5:" in listed.stderr
    one = cli(daemon.home, "tools", "show", "update_reminders", "--json")
    assert json.loads(one.stdout)["verdicts"]["NORMAL"] == "approve"  # the rules in force
    assert f"{rules}:5:" in one.stderr
    doctor = cli(daemon.home, "doctor", "--json")
    assert doctor.returncode == 1
    report = json.loads(doctor.stdout)
    assert report["healthy"] is False and report["governance"]["error"].startswith(f"{rules}:5:")
    assert any("keeps the rules" in note for note in report["stale"])
    events = log_events(daemon.home, "governance_not_reloaded")
    failed = [e for e in events if e["event"] == "governance_not_reloaded"]
    assert len(failed) == 1 and failed[0]["error"].startswith(f"{rules}:5:")  # said once
    save(rules, "tools: {}\n")  # fixed: in force at the next call
    assert create(daemon, "Proposed again")["status"] == "pending"
    assert info(daemon)["governance"]["error"] is None


def test_a_changed_configuration_is_said_with_how_to_restart(daemon: Daemon) -> None:
    assert info(daemon)["configuration"]["current"] is True
    save(daemon.home / "config.toml", "[approvals]\nttl_hours = 2\n[http]\nnotifications = false\n")
    found = info(daemon)["configuration"]
    assert found["current"] is False
    assert found["changed"] == ["approvals.ttl_hours", "http.notifications"]
    assert "fruitctl server stop`, then `fruitctl server start`" in found["restart"]
    shown = cli(daemon.home, "info")
    assert "CHANGED since start" in shown.stdout
    assert "older configuration: config.toml changed (approvals.ttl_hours, http.notifications)" in (
        shown.stdout
    )
    listed = cli(daemon.home, "tools", "list")
    assert "! The daemon runs an older configuration" in listed.stderr
    status = cli(daemon.home, "server", "status")
    assert status.returncode == 0 and "! The daemon runs an older configuration" in status.stdout
    assert "fruitctl server start" in listed.stderr
    report = json.loads(cli(daemon.home, "doctor", "--json").stdout)
    assert report["healthy"] is False
    assert any("older configuration" in note for note in report["stale"])
    events = log_events(daemon.home, "config_not_applied")
    told = [e for e in events if e["event"] == "config_not_applied"]
    assert [e["changed"] for e in told] == [["approvals.ttl_hours", "http.notifications"]]


def test_a_configuration_that_no_longer_loads_is_said_by_the_daemon(daemon: Daemon) -> None:
    config = daemon.home / "config.toml"
    save(config, "[approvals]\nttl_hours = 2\nttl_hours = 3\n")
    found = info(daemon)["configuration"]
    assert found["current"] is False and found["error"].startswith(f"{config}:3: not valid TOML")
    # The CLI reads the same file first and stops there, with the same place: never silent.
    shown = cli(daemon.home, "info")
    assert shown.returncode == 78 and f"{config}:3:" in shown.stderr
    doctor = cli(daemon.home, "doctor", "--json")
    report = json.loads(doctor.stdout)
    assert report["config"]["state"] == "broken" and report["healthy"] is False
    assert report["daemon"]["answers"] is True  # checked all the same: it needs no config
    assert any("does not load now" in note for note in report["stale"])


def test_the_first_look_compares_whatever_the_file_did_before() -> None:
    """A config.toml changed after the daemon read it but before anyone asked is still seen."""
    with short_home() as home:
        (home / "config.toml").write_text("[approvals]\nttl_hours = 5\n")
        with running(home) as served:
            save(home / "config.toml", "[approvals]\nttl_hours = 6\n")
            assert info(served)["configuration"]["changed"] == ["approvals.ttl_hours"]


def test_the_http_api_follows_the_file_too() -> None:
    """An agent with a token, over the daemon's HTTP API at its real port: the same rules."""
    with short_home() as home:
        made = cli(home, "auth", "token", "--scope", "agent", "--name", "claude")
        assert made.returncode == 0, made.stderr
        headers = {"Authorization": f"Bearer {made.stdout.strip()}"}
        body = {"reminders": [{"title": "Over HTTP"}]}
        with running(home) as daemon:
            url = info(daemon)["httpUrl"]
            with httpx.Client(base_url=url, headers=headers, timeout=30) as api:
                assert api.post("/tools/create_reminders", json=body).status_code == 202
                save(home / "governance.yaml", ALLOW_CREATE)
                listed = {t["name"]: t for t in api.get("/tools").json()}
                assert listed["create_reminders"]["verdicts"]["NORMAL"] == "allow"
                assert api.post("/tools/create_reminders", json=body).status_code == 200
                save(home / "governance.yaml", "tools: [\n")
                said = api.get("/info").json()["governance"]
                assert said["error"].startswith(f"{home / 'governance.yaml'}:2:")
                assert api.post("/tools/create_reminders", json=body).status_code == 200  # kept
