"""`fruitctl doctor` and backend selection off macOS: `auto` is the embedded store here, and
asking for Apple's stores on Linux is one clear line, not a traceback."""

from __future__ import annotations

import json
from typing import Any

import pytest
from socket_daemon import running, short_home
from typer.testing import CliRunner

from fruitctl import bootstrap
from fruitctl.backends import eventkit
from fruitctl.cli.app import app
from fruitctl.config import load
from fruitctl.domain.errors import PermissionDenied
from fruitctl.sandbox import isolation
from fruitctl.transports.rpc.client import RpcClient

runner = CliRunner()


def cli(*args: str) -> Any:
    return runner.invoke(app, list(args))


@pytest.mark.parametrize("section", ["REMINDERS", "CALENDAR"])
def test_eventkit_off_macos_is_one_configuration_line(
    section: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(eventkit, "available", lambda: False)
    monkeypatch.setenv(f"FRUITCTL_{section}__BACKEND", "eventkit")
    result = cli("reminders", "list")
    assert result.exit_code == 78
    assert "backend 'eventkit' reads Apple Reminders and Calendar through EventKit" in result.stderr
    assert "Traceback" not in result.output
    as_json = json.loads(cli("lists", "--json").stdout)
    assert as_json["error"]["code"] == "config_error"


def test_auto_means_apples_stores_only_where_eventkit_is_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(eventkit, "available", lambda: False)
    assert bootstrap.backend_name("auto") == "local"
    monkeypatch.setattr(eventkit, "available", lambda: True)
    assert bootstrap.backend_name("auto") == "eventkit"
    assert bootstrap.backend_name("caldav") == "caldav"


def test_doctor_reports_every_part_and_is_healthy_on_the_embedded_store() -> None:
    result = cli("doctor", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["healthy"] is True
    assert report["reminders"]["backend"].startswith("auto -> ")
    assert report["reminders"]["permission"] == "authorized"
    assert report["reminders"]["lists"] >= 1 and report["calendar"]["calendars"] >= 1
    assert report["things"]["state"] == "not set up"  # no Things database on this machine
    assert report["daemon"]["running"] is False and report["http"]["answers"] is False
    text = cli("doctor")
    assert text.exit_code == 0 and "all good" in text.stdout


def test_the_write_test_is_for_apple_reminders_only() -> None:
    report = json.loads(cli("doctor", "--write-test", "--json").stdout)
    assert report["writeTest"]["ran"] is False
    assert "only for Apple Reminders" in report["writeTest"]["reason"]


# -- the daemon that serves ------------------------------------------------------------------------

DENIED = {
    "FRUITCTL_REMINDERS__BACKEND": "fake_backends:denied_reminders",
    "FRUITCTL_CALENDAR__BACKEND": "fake_backends:denied_calendars",
}


@pytest.mark.process
def test_doctor_asks_the_daemon_and_says_where_its_access_differs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """This process has access (the embedded store) but the running daemon does not: doctor
    shows both, says so in words, and is not healthy - the daemon is the one that serves."""
    with short_home() as home, running(home, **DENIED) as daemon:
        monkeypatch.setenv("FRUITCTL_HOME", str(home))
        shown = cli("doctor", "--json")
        report = json.loads(shown.stdout)
        assert report["reminders"]["permission"] == "authorized"  # this process
        assert report["daemon"]["pid"] == daemon.pid
        assert report["daemon"]["info"]["permissions"] == {
            "reminders": "denied",
            "calendar": "denied",
        }
        assert report["healthy"] is False and shown.exit_code == 1
        said = " ".join(report["mismatches"])
        assert "This process has access to Reminders but the daemon" in said
        assert "the daemon is the one agents and fruitctl commands use" in said
        assert "Run `fruitctl lists`" in said and "Run `fruitctl calendars`" in said
        assert "restart the daemon" in said  # it serves another backend than configured
        text = cli("doctor").stdout
        assert "its reminders: access denied" in text and "! This process has access" in text


@pytest.mark.process
def test_doctor_with_a_daemon_that_serves_well_is_healthy(monkeypatch: pytest.MonkeyPatch) -> None:
    with short_home() as home, running(home):
        monkeypatch.setenv("FRUITCTL_HOME", str(home))
        report = json.loads(cli("doctor", "--json").stdout)
        assert report["daemon"]["info"]["permissions"]["reminders"] == "authorized"
        assert report["daemon"]["info"]["backends"] == {"reminders": "local", "calendar": "local"}
        assert report["mismatches"] == [] and report["healthy"] is True


@pytest.mark.process
def test_the_write_test_runs_in_the_daemon_when_one_serves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """macOS grants access per app: with a daemon serving, its write test is the one that says
    whether agents' writes can land. The daemon here serves another backend than this process
    is configured for, so its answer names the daemon's."""
    with short_home() as home, running(home, **DENIED):
        monkeypatch.setenv("FRUITCTL_HOME", str(home))
        report = json.loads(cli("doctor", "--write-test", "--json").stdout)
        test = report["writeTest"]
        assert test["in"] == "daemon"
        assert test["ran"] is False and "fake_backends:denied_reminders" in test["reason"]
        text = cli("doctor", "--write-test").stdout
        assert "(run by the daemon)" in text
        # An agent on the socket (no token) may not write through it.
        client = RpcClient.connect(load().paths.socket_file)
        assert client is not None
        try:
            with pytest.raises(PermissionDenied, match="Only the person"):
                client.request("system.writeTest")
        finally:
            client.close()


@pytest.mark.process  # doctor names the platform: Python's platform module runs `uname -p` once
def test_doctor_shows_how_strongly_the_sandbox_holds_a_program() -> None:
    here = isolation.current()
    report = json.loads(cli("doctor", "--json").stdout)
    assert report["sandbox"] == here.describe()
    assert report["sandbox"]["containment"] in ("namespaces", "cgroup", "process-tree walk")
    text = cli("doctor").stdout
    assert f"sandbox     isolation: {here.containment}" in text
    assert f"process limit: {here.process_limit}" in text
    for reason in here.reasons:  # why nothing stronger, in words
        assert f"- {reason}" in text


@pytest.mark.process
def test_doctor_says_why_when_the_sandbox_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    weaker = isolation.Isolation(
        "process-tree walk",
        "RLIMIT_NPROC over all of this user's processes",
        "not restricted (no network namespace)",
        ("new namespaces are refused here (unshare: Operation not permitted)",),
    )
    monkeypatch.setattr(isolation, "current", lambda: weaker)
    text = cli("doctor").stdout
    assert "sandbox     isolation: process-tree walk" in text
    assert "- new namespaces are refused here (unshare: Operation not permitted)" in text
