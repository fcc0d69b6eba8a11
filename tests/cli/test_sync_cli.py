"""``fruitctl sync`` and the CalDAV configuration, end to end: config.toml and environment ->
bootstrap -> the caldav backends on a real Radicale; the password shows up nowhere."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from caldav_server import Account, Radicale, running_proxy, vtodo
from typer.testing import CliRunner

from fruitctl import bootstrap, config
from fruitctl.cli.app import app
from fruitctl.config import ConfigError
from fruitctl.domain.actors import Actor

runner = CliRunner()


@pytest.fixture
def on_caldav(home: Path, caldav_account: Account, monkeypatch: pytest.MonkeyPatch) -> Account:
    """Reminders and calendars on the account; the password comes from the environment."""
    return use_account(home, caldav_account, monkeypatch)


def use_account(home: Path, account: Account, monkeypatch: pytest.MonkeyPatch) -> Account:
    """A FRUITCTL_HOME whose reminders and calendars are on ``account``, run in this process."""
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(
        '[reminders]\nbackend = "caldav"\n[calendar]\nbackend = "caldav"\n'
        f'[caldav]\nurl = "{account.home}"\nusername = "{account.username}"\n'
    )
    monkeypatch.setenv("FRUITCTL_CALDAV_PASSWORD", account.password)
    monkeypatch.setenv("FRUITCTL_IN_PROCESS", "1")
    return account


def test_sync_reports_what_it_did(on_caldav: Account) -> None:
    on_caldav.put(on_caldav.made[0] + "a.ics", vtodo("a", "SUMMARY:from the phone"))
    done = runner.invoke(app, ["sync", "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert (report["backend"], report["collections"], report["fetched"]) == ("caldav", 2, 1)
    again = runner.invoke(app, ["sync"])
    assert again.exit_code == 0, again.output
    assert "Synced 2 calendars" in again.stdout and "0 fetched" in again.stdout
    assert on_caldav.password not in done.output + again.output


def test_the_gateway_reads_and_writes_the_caldav_account(on_caldav: Account) -> None:
    lists = runner.invoke(app, ["lists", "--json"])
    assert lists.exit_code == 0, lists.output
    assert [entry["name"] for entry in json.loads(lists.stdout)] == ["Reminders"]
    built = bootstrap.build()
    try:
        assert [c.name for c in built.calendar_backend.calendars()] == ["Calendar"]
        assert built.backend.name == built.calendar_backend.name == "caldav"
    finally:
        built.close()
    assert config.load().paths.caldav_db.exists()


def test_sync_without_a_caldav_backend_says_what_to_do() -> None:
    done = runner.invoke(app, ["sync", "--json"])
    assert done.exit_code == 10
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "unsupported"
    assert "[caldav]" in error["message"]


def test_the_caldav_backend_without_a_url_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FRUITCTL_REMINDERS__BACKEND", "caldav")
    with pytest.raises(ConfigError, match=r"\[caldav\] url"):
        bootstrap.build().backend  # noqa: B018 - building it is the test


# -- the password ------------------------------------------------------------------------------


def test_the_password_never_shows(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home.mkdir()
    (home / "config.toml").write_text('[caldav]\npassword = "hunter2"\n')
    section = config.load().settings.caldav
    assert "hunter2" not in repr(section) and "hunter2" not in str(section)
    assert section.secret({}) == "hunter2"
    (home / "config.toml").write_text("[caldav]\npassword = 12345\n")
    with pytest.raises(ConfigError) as bad:
        config.load()
    assert "12345" not in str(bad.value)
    assert "caldav.password" in str(bad.value)


@pytest.mark.process
def test_the_password_from_the_environment_or_a_command(home: Path) -> None:
    home.mkdir()
    command = [sys.executable, "-c", "print('from a command; not a shell')"]
    (home / "config.toml").write_text(f"[caldav]\npassword_command = {json.dumps(command)}\n")
    section = config.load().settings.caldav
    assert section.secret({}) == "from a command; not a shell"
    assert section.secret({"FRUITCTL_CALDAV_PASSWORD": "env"}) == "env"


@pytest.mark.process
def test_a_failing_password_command_says_so_without_its_output(home: Path) -> None:
    home.mkdir()
    command = [sys.executable, "-c", "import sys; print('s3cret'); sys.exit(3)"]
    (home / "config.toml").write_text(f"[caldav]\npassword_command = {json.dumps(command)}\n")
    with pytest.raises(ConfigError) as failed:
        config.load().settings.caldav.secret({})
    assert "exit status 3" in str(failed.value) and "s3cret" not in str(failed.value)


def test_a_password_command_is_an_argument_list_never_a_shell_line(home: Path) -> None:
    home.mkdir()
    (home / "config.toml").write_text('[caldav]\npassword_command = "pass show caldav"\n')
    with pytest.raises(ConfigError, match=r"caldav\.password_command"):
        config.load()


def test_refused_credentials_are_permission_denied_with_what_to_do(
    on_caldav: Account, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRUITCTL_CALDAV_PASSWORD", "not the password")
    info = runner.invoke(app, ["info", "--json"])
    assert info.exit_code == 0, info.output
    assert json.loads(info.stdout)["permissions"] == {"reminders": "denied", "calendar": "denied"}
    # Through the gateway, as an agent's call sees it: the service and what to do about it.
    built = bootstrap.build()
    try:
        for tool, service in (("get_lists", "reminders"), ("list_calendars", "calendar")):
            result = built.gateway.invoke(tool, {}, Actor("agent", "test"))
            assert result.error_code == "permission_denied", (tool, result.error)
            assert result.error_details["service"] == service
            steps = " ".join(result.error_details["instructions"])
            assert "[caldav]" in steps and "fruitctl doctor" in steps
            assert "not the password" not in json.dumps(result.error_details) + (result.error or "")
    finally:
        built.close()
    listed = runner.invoke(app, ["lists"])
    assert listed.exit_code != 0 and "refused the credentials" in listed.stderr
    assert "Traceback" not in listed.stderr


def test_a_server_out_of_reach_is_not_reported_as_authorized(
    on_caldav: Account, home: Path
) -> None:
    (home / "config.toml").write_text(
        '[reminders]\nbackend = "caldav"\n[calendar]\nbackend = "caldav"\n'
        '[caldav]\nurl = "http://127.0.0.1:9/dav/"\nusername = "nobody"\ntimeout_seconds = 2\n'
    )
    info = runner.invoke(app, ["info", "--json"])
    assert info.exit_code == 0, info.output
    found = json.loads(info.stdout)
    assert found["permissions"] == {"reminders": "not_determined", "calendar": "not_determined"}
    assert "cannot be reached" in found["unavailable"]["reminders"]
    shown = runner.invoke(app, ["info"])
    assert "not_determined (The CalDAV server at 127.0.0.1:9 cannot be reached" in shown.stdout


def test_demo_on_a_caldav_account_adds_what_is_missing_once(on_caldav: Account) -> None:
    first = runner.invoke(app, ["demo", "--into-remote", "--json"])
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["seeded"] is True
    lists = json.loads(runner.invoke(app, ["lists", "--json"]).stdout)
    # The account's default list is the inbox: no empty list beside the sample's.
    assert lists[0]["name"] == "Reminders" and lists[0]["isDefault"] is True
    assert [x["name"] for x in lists] == ["Reminders", "Work", "Personal", "Errands"]
    again = runner.invoke(app, ["demo", "--into-remote"])
    assert again.exit_code == 0, again.output
    assert "No sample added" in again.stdout and "Traceback" not in again.output
    assert json.loads(runner.invoke(app, ["lists", "--json"]).stdout) == lists


def test_demo_on_an_account_without_an_event_calendar(
    radicale: Radicale, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    account = radicale.add_account()
    account.make_calendar("Tasks", ["VTODO"])
    use_account(home, account, monkeypatch)
    done = runner.invoke(app, ["demo", "--into-remote", "--json"])
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    assert result["seeded"] is True and result["events"] > 0  # its calendars were made
    names = {c["name"] for c in json.loads(runner.invoke(app, ["calendars", "--json"]).stdout)}
    assert {"Work", "Personal"} <= names


def test_reminders_and_calendar_share_one_mirror_and_one_check(
    on_caldav: Account, home: Path
) -> None:
    with running_proxy(on_caldav.server.url) as proxy:
        config_file = home / "config.toml"
        config_file.write_text(config_file.read_text().replace(on_caldav.server.url, proxy.url))
        built = bootstrap.build()
        try:
            assert built.gateway.invoke("get_lists", {}, Actor("agent", "test")).success
            assert "PROPFIND" in proxy.seen  # the first read synced the account
            proxy.seen.clear()
            # The calendar backend reads the same mirror, synced a moment ago: no request.
            assert built.gateway.invoke("list_calendars", {}, Actor("agent", "test")).success
            assert proxy.seen == []
            assert built.backend.mirror is built.calendar_backend.mirror  # type: ignore[attr-defined]
        finally:
            built.close()
