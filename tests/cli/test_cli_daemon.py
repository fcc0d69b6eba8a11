"""The CLI and the daemon: with a daemon running every command goes through its socket, without
one the same commands run in-process; ``server start|stop|status``; ``service install``."""

from __future__ import annotations

import configparser
import json
import os
import signal
import socket
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import Result
from socket_daemon import Daemon, Raw, answers, cli, running, seed_demo, short_home
from typer.testing import CliRunner

from fruitctl import __version__
from fruitctl.cli.app import app
from fruitctl.daemon.lifecycle import lock_holder

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

runner = CliRunner()
TELL_TALE = "3"  # the daemon cuts notes previews to this many characters; the CLI to 80


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with short_home() as home:
        seed_demo(home)
        with running(home, FRUITCTL_REMINDERS__NOTES_PREVIEW_CHARS=TELL_TALE) as served:
            yield served


@pytest.fixture
def fruitctl(daemon: Daemon, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    """``fruitctl …`` in this process, on the daemon's files (so it finds the daemon)."""
    monkeypatch.setenv("FRUITCTL_HOME", str(daemon.home))
    return lambda *args, **env: runner.invoke(app, list(args), env=env or None)


def previews(output: str) -> set[int]:
    items = json.loads(output)["items"]
    return {len(i["notesPreview"]) for i in items if i["notesPreview"]}


def test_a_separate_fruitctl_process_goes_through_the_daemon(daemon: Daemon) -> None:
    via_daemon = cli(daemon.home, "reminders", "open", "--json")
    assert via_daemon.returncode == 0, via_daemon.stderr
    assert previews(via_daemon.stdout) == {int(TELL_TALE)}
    with Raw(daemon.socket) as rpc:
        raw = rpc.result("reminders.open")
    assert [i["id"] for i in raw["items"]] == [
        i["id"] for i in json.loads(via_daemon.stdout)["items"]
    ]


def test_in_process_when_told(fruitctl: Callable[..., Result]) -> None:
    in_process = fruitctl("reminders", "open", "--json", FRUITCTL_IN_PROCESS="1")
    assert in_process.exit_code == 0
    assert max(previews(in_process.stdout)) > int(TELL_TALE)
    assert previews(fruitctl("reminders", "open", "--json").stdout) == {int(TELL_TALE)}


def test_ping_and_info_answer_from_the_daemon(
    daemon: Daemon, fruitctl: Callable[..., Result]
) -> None:
    ping = fruitctl("ping")
    assert ping.exit_code == 0
    assert f"ok: fruitctl {__version__} (daemon on {daemon.socket})" in ping.stdout
    assert json.loads(fruitctl("ping", "--json").stdout) == {
        "ok": True,
        "service": "fruitctl",
        "version": __version__,
    }
    info = json.loads(fruitctl("info", "--json").stdout)
    assert info["daemon"] is True and info["pid"] == daemon.pid
    # The same process serves the HTTP API, on the free port it was given (--port 0).
    assert info["httpUrl"].startswith("http://127.0.0.1:")
    assert not info["httpUrl"].endswith(":0")
    health = httpx.get(f"{info['httpUrl']}/health", timeout=30)
    assert health.status_code == 200
    text = fruitctl("info").stdout
    assert f"daemon (pid {daemon.pid})" in text and "reminders access   authorized" in text


def test_calendar_upcoming_goes_through_the_daemon(fruitctl: Callable[..., Result]) -> None:
    done = fruitctl("calendar", "upcoming", "--days", "3", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["count"] >= 1


def test_a_persons_write_through_the_daemon_is_not_a_proposal(
    fruitctl: Callable[..., Result],
) -> None:
    added = fruitctl("reminders", "add", "--title", "typed by a person", "--json")
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout)["created"][0]["title"] == "typed by a person"
    args = '{"reminders": [{"title": "asked by an agent"}]}'
    as_agent = fruitctl("tools", "call", "create_reminders", "--as", "agent", "--args", args)
    assert json.loads(as_agent.stdout)["status"] == "pending"


def test_the_daemon_sees_writes_made_by_other_processes(
    daemon: Daemon, fruitctl: Callable[..., Result]
) -> None:
    for title in ("written elsewhere", "and again"):  # the second is the one a stale read misses
        added = fruitctl("reminders", "add", "--title", title, FRUITCTL_IN_PROCESS="1")
        assert added.exit_code == 0, added.output
        with Raw(daemon.socket) as rpc:
            items = rpc.result("reminders.open", {"limit": 1000})["items"]
        assert title in {item["title"] for item in items}


def test_errors_through_the_daemon_keep_their_exit_codes(fruitctl: Callable[..., Result]) -> None:
    bad = fruitctl("reminders", "open", "--limit", "0", "--json")
    assert bad.exit_code == 2
    assert json.loads(bad.stdout)["error"]["code"] == "invalid_params"
    missing = fruitctl("reminders", "get", "nope")
    assert missing.exit_code == 3 and "nope" in missing.stderr


def test_without_a_daemon_the_same_commands_run_in_process(home: Path) -> None:
    ping = runner.invoke(app, ["ping"])
    assert ping.exit_code == 0 and "(in-process)" in ping.stdout
    info = json.loads(runner.invoke(app, ["info", "--json"]).stdout)
    assert info["daemon"] is False
    assert info["socketPath"] == str(home / "run" / "fruitctl.sock")
    assert info["permissions"] == {"reminders": "authorized", "calendar": "authorized"}
    assert runner.invoke(app, ["reminders", "open", "--json"]).exit_code == 0


def test_a_stale_socket_means_in_process(home: Path) -> None:
    import socket

    run = home / "run"
    run.mkdir(parents=True, mode=0o700)
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(run / "fruitctl.sock"))
    dead.close()  # the file stays, nobody listens
    assert "(in-process)" in runner.invoke(app, ["ping"]).stdout


# -- server start | stop | status ------------------------------------------------------------------


@pytest.mark.slow
def test_server_start_status_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    with short_home() as home:
        monkeypatch.setenv("FRUITCTL_HOME", str(home))
        socket_path, pid_file = home / "run" / "fruitctl.sock", home / "run" / "fruitctl.pid"

        def fruitctl(*args: str) -> Result:
            return runner.invoke(app, list(args))

        try:
            with socket.socket() as probe:  # a free port, for --port as the HTTP API's
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            started = fruitctl("server", "start", "--host", "127.0.0.1", "--port", str(port))
            assert started.exit_code == 0, started.output
            pid = int(pid_file.read_text())
            assert answers(socket_path) and f"Started (pid {pid})" in started.stdout
            status = fruitctl("server", "status", "--json")
            assert status.exit_code == 0 and json.loads(status.stdout)["info"]["pid"] == pid
            assert json.loads(status.stdout)["info"]["httpUrl"] == f"http://127.0.0.1:{port}"
            again = json.loads(fruitctl("server", "start", "--json").stdout)
            assert again == {"started": False, "pid": pid, "socketPath": str(socket_path)}
            stopped = json.loads(fruitctl("server", "stop", "--json").stdout)
            assert stopped == {"stopped": True, "pid": pid}
            assert not socket_path.exists() and not pid_file.exists()
            down = fruitctl("server", "status")
            assert down.exit_code == 3 and "not running" in down.stdout
            assert json.loads(fruitctl("server", "stop", "--json").stdout)["stopped"] is False
        finally:
            holder = lock_holder(home / "run" / "fruitctl.lock")
            if holder and holder > 0:  # never leave a daemon behind, whatever failed
                os.kill(holder, signal.SIGKILL)


def test_server_start_reports_a_daemon_that_cannot_start(monkeypatch: pytest.MonkeyPatch) -> None:
    with short_home() as home:
        monkeypatch.setenv("FRUITCTL_HOME", str(home))
        # Only the daemon reads governance.yaml (building its gateway): the start must say so.
        (home / "governance.yaml").write_text(
            "tools:\n  write_file:\n    allowed_in_modes: [NORML]\n"
        )
        failed = runner.invoke(app, ["server", "start"])
        assert failed.exit_code == 13  # the gateway could not start
        assert "exited (78) while starting" in failed.stderr and "server.log" in failed.stderr
        assert "NORML" in (home / "logs" / "server.log").read_text()


def test_server_start_in_a_run_folder_others_can_enter_is_bad_configuration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with short_home() as home:
        monkeypatch.setenv("FRUITCTL_HOME", str(home))
        run_dir = home / "run"
        run_dir.mkdir()
        run_dir.chmod(0o755)
        refused = runner.invoke(app, ["server", "start", "--json"])
        assert refused.exit_code == 78  # the place is the person's choice: bad configuration
        error = json.loads(refused.stdout)["error"]
        assert error["code"] == "cannot_start" and "chmod 700" in error["message"]
        assert stat.S_IMODE(run_dir.stat().st_mode) == 0o755  # refused, never changed


# -- service install -------------------------------------------------------------------------------


def test_service_install_writes_a_systemd_user_unit(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    result = runner.invoke(app, ["service", "install", "--platform", "linux", "--json"])
    assert result.exit_code == 0, result.output
    path = tmp_path / ".config" / "systemd" / "user" / "fruitctl.service"
    assert json.loads(result.stdout)["path"] == str(path)
    unit = configparser.ConfigParser(interpolation=None, strict=False)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(path)
    service = unit["Service"]
    assert service["ExecStart"] == f'"{sys.executable}" "-m" "fruitctl" "serve"'
    assert service["Environment"] == f'"FRUITCTL_HOME={home}"'
    assert service["Restart"] == "on-failure" and float(service["RestartSec"]) > 0
    assert service["RestartPreventExitStatus"] == "4 78"
    assert int(unit["Unit"]["StartLimitBurst"]) > 0
    assert unit["Install"]["WantedBy"] == "default.target"
    assert path.stat().st_mode & 0o777 == 0o644


def test_service_status_and_uninstall(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service manager cannot run here: a stand-in ``systemctl`` on PATH records what it
    was asked; the file handling and the order of the asking are fruitctl's own."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    bin_dir, asked = tmp_path / "bin", tmp_path / "asked"
    bin_dir.mkdir()
    stand_in = bin_dir / "systemctl"
    stand_in.write_text(f'#!/bin/sh\necho "$@" >> "{asked}"\n')
    stand_in.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    linux = ["--platform", "linux"]
    path = tmp_path / ".config" / "systemd" / "user" / "fruitctl.service"

    missing = runner.invoke(app, ["service", "status", *linux])
    assert missing.exit_code == 3 and "not installed" in missing.stdout
    assert runner.invoke(app, ["service", "install", *linux]).exit_code == 0
    status = json.loads(runner.invoke(app, ["service", "status", *linux, "--json"]).stdout)
    assert (status["installed"], status["upToDate"], status["path"]) == (True, True, str(path))
    assert status["daemon"]["running"] is False
    path.write_text(path.read_text().replace("RestartSec=2", "RestartSec=9"))
    stale = runner.invoke(app, ["service", "status", *linux])
    assert stale.exit_code == 0 and "differs from now" in stale.stdout

    removed = runner.invoke(app, ["service", "uninstall", *linux])
    assert removed.exit_code == 0, removed.output
    assert not path.exists() and f"Removed {path}" in removed.stdout
    assert asked.read_text().splitlines() == [
        "--user disable --now fruitctl.service",
        "--user daemon-reload",
    ]
    again = json.loads(runner.invoke(app, ["service", "uninstall", *linux, "--json"]).stdout)
    assert again == {"removed": False, "path": str(path), "manager": []}


@pytest.mark.parametrize(
    "command",
    [
        ["serve"],
        ["ping"],
        ["info"],
        ["server"],
        *[["server", sub] for sub in ("start", "stop", "status")],
        *[["service", sub] for sub in ("install", "uninstall", "status")],
        *[["aai", sub] for sub in ("install", "call")],
    ],
)
def test_every_daemon_command_has_help(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0 and "Usage:" in result.stdout


def test_serve_documents_the_http_options() -> None:
    text = runner.invoke(app, ["serve", "--help"]).stdout
    assert "--host" in text and "--port" in text and "8765" in text
