"""``fruitctl doctor`` checks what is, not what was (issue 28, item 2): the CalDAV server itself,
however fresh the mirror; this home's daemon's HTTP server at the port it really serves; and a
configuration error as one failed check that names where the value came from - the file or an
environment variable. Run as a person runs it: a separate ``fruitctl`` process, a real daemon,
a real Radicale stopped under it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from caldav_server import running_radicale
from socket_daemon import Raw, cli, running, short_home


def doctor(home: Path, **env: str) -> tuple[int, dict[str, Any]]:
    done = cli(home, "doctor", "--json", **env)
    assert "Traceback" not in done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.mark.slow
def test_a_caldav_server_that_is_down_fails_however_fresh_the_mirror(tmp_path: Path) -> None:
    with short_home() as home, running_radicale(tmp_path / "radicale") as server:
        account = server.add_account()
        account.make_calendar("Reminders", ["VTODO"])
        account.make_calendar("Calendar", ["VEVENT"])
        (home / "config.toml").write_text(
            '[reminders]\nbackend = "caldav"\n[calendar]\nbackend = "caldav"\n'
            f'[caldav]\nurl = "{account.home}"\nusername = "{account.username}"\n'
            "staleness_seconds = 86400\ntimeout_seconds = 5\n"  # the mirror stays fresh all day
        )
        password = {"FRUITCTL_CALDAV_PASSWORD": account.password}
        assert cli(home, "sync", **password).returncode == 0
        with running(home, **password) as daemon:
            code, report = doctor(home, **password)
            assert code == 0 and report["healthy"] is True, report
            server.stop()
            code, report = doctor(home, **password)
            assert code == 1 and report["healthy"] is False
            assert report["reminders"]["state"] == "failing"
            assert report["reminders"]["error"]["code"] == "backend_unavailable"
            assert "cannot be reached" in report["reminders"]["error"]["message"]
            # What made this silent before: the daemon's fresh mirror still says all is well.
            with Raw(daemon.socket) as rpc:
                assert rpc.result("system.info")["permissions"]["reminders"] == "authorized"
        shown = cli(home, "doctor", **password)  # no daemon now: this process alone
        assert shown.returncode == 1 and "cannot be reached" in shown.stdout
        assert "(the same problem, above)" in shown.stdout  # one account, said once


@pytest.mark.slow
def test_the_http_check_is_this_homes_daemon_at_its_real_port() -> None:
    with short_home() as home:
        code, report = doctor(home)
        assert code == 0, report  # no daemon, so no HTTP server is expected
        assert report["http"] == {
            "url": None,
            "answers": False,
            "expected": False,
            "why": "no daemon runs",
        }
        with running(home) as daemon:  # --port 0: a free port, never the default 8765
            with Raw(daemon.socket) as rpc:
                served = rpc.result("system.info")["httpUrl"]
            assert not served.endswith(":8765")
            code, report = doctor(home)
            assert report["http"]["url"] == served and report["http"]["answers"] is True
            assert code == 0, report
            text = cli(home, "doctor").stdout
            assert f"http        {served} answers" in text


@pytest.mark.process
def test_a_bad_value_from_the_environment_is_one_failed_check_naming_the_variable() -> None:
    with short_home() as home:
        code, report = doctor(home, FRUITCTL_CALDAV__URL="dav.example.com")
        assert code == 1 and report["healthy"] is False
        error = report["config"]["error"]
        assert report["config"]["state"] == "broken"
        assert "the environment variable FRUITCTL_CALDAV__URL (caldav.url)" in error
        assert "https://dav.example.com" in error and "fix or unset it" in error
        assert report["reminders"]["state"] == "not checked"  # left out, not failed
        assert report["stores"] == {} and report["things"]["state"] == "not checked"
        assert report["daemon"]["running"] is False  # what needs no configuration is checked
        shown = cli(home, "doctor", FRUITCTL_CALDAV__URL="dav.example.com")
        assert shown.returncode == 1 and "Traceback" not in shown.stderr
        assert shown.stdout.count("BROKEN") == 1 and "FRUITCTL_CALDAV__URL" in shown.stdout


@pytest.mark.process
def test_a_bad_value_in_the_file_names_the_file() -> None:
    with short_home() as home:
        (home / "config.toml").write_text("[http]\nport = 'eighty'\n")
        code, report = doctor(home)
        assert code == 1
        error = report["config"]["error"]
        assert error.startswith(f"{home / 'config.toml'}: 'http.port'")
        assert "environment" not in error


@pytest.mark.slow
def test_a_backend_that_cannot_be_configured_fails_its_check_not_doctor() -> None:
    """caldav without a URL: reminders and calendar fail with the message, once in words; the
    other checks still run."""
    with short_home() as home:
        (home / "config.toml").write_text(
            '[reminders]\nbackend = "caldav"\n[calendar]\nbackend = "caldav"\n'
        )
        code, report = doctor(home)
        assert code == 1 and report["config"]["state"] == "ok"
        for service in ("reminders", "calendar"):
            assert report[service]["state"] == "unavailable"
            assert report[service]["error"]["code"] == "config_error"
            assert "needs [caldav] url" in report[service]["error"]["message"]
        assert report["stores"]["state"]["state"] != "broken"
        text = cli(home, "doctor").stdout
        assert text.count("needs [caldav] url") == 1 and "(the same problem, above)" in text


@pytest.mark.parametrize("broken", ["tools:\n  nothing_here: {}\n", "tools: [\n"])
@pytest.mark.process
def test_a_broken_governance_file_fails_its_check_with_its_line(broken: str) -> None:
    with short_home() as home:
        (home / "governance.yaml").write_text(broken)
        code, report = doctor(home)
        assert code == 1 and report["healthy"] is False
        assert report["governance"]["error"].startswith(f"{home / 'governance.yaml'}:")
        assert report["reminders"]["state"] == "ok"  # the rest is checked all the same
        shown = cli(home, "info")  # no daemon: no rules run at all, and info says so
        said = " ".join(shown.stdout.split())  # as wrapped to the terminal's width
        assert shown.returncode == 0 and "until it is fixed, no tool runs" in said


@pytest.mark.process
def test_a_variable_read_by_nothing_is_named_with_the_spelling_meant() -> None:
    """One underscore where the setting needs two: pydantic-settings ignores it silently."""
    with short_home() as home:
        code, report = doctor(home, FRUITCTL_CALDAV_URL="https://dav.example.com/")
        assert code == 1 and report["config"]["state"] == "ok"
        assert report["environment"]["unread"] == [
            {"variable": "FRUITCTL_CALDAV_URL", "meant": "FRUITCTL_CALDAV__URL"}
        ]
        text = cli(home, "doctor", FRUITCTL_CALDAV_URL="x", FRUITCTL_HTTP__PORT="8765").stdout
        assert "FRUITCTL_CALDAV_URL is set but fruitctl reads no such variable" in text
        assert "did you mean FRUITCTL_CALDAV__URL?" in text
        assert "FRUITCTL_HTTP__PORT" not in text  # a setting: read
