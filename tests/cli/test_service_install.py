"""``fruitctl service install|status|uninstall --platform macos``, run here for real: it builds
fruitctl.app with the system's ``cc`` and writes the launchd agent that runs it.

launchd cannot run here: a stand-in ``launchctl`` on PATH records what it was asked. What the
app's launcher starts is the real ``fruitctl serve``: the installed executable is run, answers on
its socket, and stops cleanly on SIGTERM, as launchd would stop it.
"""

from __future__ import annotations

import json
import os
import plistlib
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import Result
from needs import missing
from socket_daemon import Daemon, daemon_env, reap, short_home, wait_ready
from typer.testing import CliRunner

from fruitctl.cli.app import app

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

runner = CliRunner()
MAC = ["--platform", "macos"]
AGENT = Path("Library") / "LaunchAgents" / "dev.fruitctl.gateway.plist"
APP = Path("Applications") / "fruitctl.app"


@pytest.fixture(autouse=True)
def _user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("cc") is None:
        missing("a C compiler (cc): on a Mac, xcode-select --install; on Debian, apt install gcc")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)


def service(*args: str) -> Result:
    return runner.invoke(app, ["service", *args])


def test_install_builds_the_app_and_the_agent_runs_its_launcher(home: Path, tmp_path: Path) -> None:
    result = service("install", *MAC)
    assert result.exit_code == 0, result.output
    agent = plistlib.loads((tmp_path / AGENT).read_bytes())
    executable = tmp_path / APP / "Contents" / "MacOS" / "fruitctl"
    assert agent["ProgramArguments"] == [str(executable)]
    assert agent["AssociatedBundleIdentifiers"] == ["dev.fruitctl.gateway"]
    assert agent["EnvironmentVariables"] == {"FRUITCTL_HOME": str(home)}
    assert agent["KeepAlive"] == {"SuccessfulExit": False}
    assert agent["ThrottleInterval"] >= 10 and agent["RunAtLoad"] is True
    assert agent["ExitTimeOut"] >= 30  # the daemon drains in-flight requests on SIGTERM
    assert os.access(executable, os.X_OK)
    said = " ".join(result.stdout.split())
    assert f"Built {tmp_path / APP} (not signed: codesign runs only on macOS)." in said
    assert "launchctl bootstrap" in said
    assert 'macOS asks once, as "fruitctl"' in said and "may be asked about again" in said
    assert f"Full Disk Access > + > {tmp_path / APP}" in said
    assert "Things' database" in said and "launchctl kickstart -k" in said


def test_a_second_install_keeps_the_app_unless_asked_to_rebuild(tmp_path: Path) -> None:
    assert service("install", *MAC).exit_code == 0
    first = (tmp_path / APP / "Contents" / "MacOS" / "fruitctl").stat().st_ino
    again = json.loads(service("install", *MAC, "--json").stdout)
    assert again["app"] == {"path": str(tmp_path / APP), "built": False, "signed": False}
    assert len(again["notes"]) == 2
    kept = service("install", *MAC)
    assert "Kept" in kept.stdout and "kickstart" not in kept.stdout
    assert (tmp_path / APP / "Contents" / "MacOS" / "fruitctl").stat().st_ino == first
    rebuilt = json.loads(service("install", *MAC, "--rebuild", "--json").stdout)
    assert rebuilt["app"]["built"] is True


def test_the_app_folder_can_be_chosen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder given relative is where the person stands; the agent names it in full."""
    folder = tmp_path / "elsewhere"
    monkeypatch.chdir(tmp_path)
    assert service("install", *MAC, "--app-folder", "elsewhere").exit_code == 0
    agent = plistlib.loads((tmp_path / AGENT).read_bytes())
    assert agent["ProgramArguments"] == [str(folder / "fruitctl.app/Contents/MacOS/fruitctl")]
    status = json.loads(service("status", *MAC, "--app-folder", str(folder), "--json").stdout)
    assert status["app"]["present"] and status["upToDate"]


def test_without_a_compiler_nothing_is_installed_and_the_fix_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = service("install", *MAC, "--json")
    assert result.exit_code == 13
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "cannot_start" and "xcode-select --install" in error["message"]
    assert not (tmp_path / AGENT).exists() and not (tmp_path / APP).exists()


def test_status_reports_the_app(tmp_path: Path) -> None:
    missing_service = service("status", *MAC)
    assert missing_service.exit_code == 3 and "is missing" in missing_service.stdout
    assert service("install", *MAC).exit_code == 0
    status = json.loads(service("status", *MAC, "--json").stdout)
    assert status["installed"] and status["upToDate"]
    assert status["app"] == {
        "path": str(tmp_path / APP),
        "present": True,
        "upToDate": True,
        "signatureValid": None,
    }
    assert "(up to date)" in service("status", *MAC).stdout

    stamp = tmp_path / APP / "Contents" / "Resources" / "fruitctl-build.json"
    built_from = json.loads(stamp.read_text())
    stamp.write_text(json.dumps({**built_from, "command": ["/old/python", "-m", "fruitctl"]}))
    stale = service("status", *MAC)
    assert stale.exit_code == 0 and "built for another Python" in stale.stdout
    shutil.rmtree(tmp_path / APP)
    gone = service("status", *MAC)
    assert gone.exit_code == 0 and "is missing - run fruitctl service install" in gone.stdout


def test_uninstall_boots_the_agent_out_and_removes_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir, asked = tmp_path / "bin", tmp_path / "asked"
    bin_dir.mkdir()
    (bin_dir / "launchctl").write_text(f'#!/bin/sh\necho "$@" >> "{asked}"\n')
    (bin_dir / "launchctl").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert service("install", *MAC).exit_code == 0

    removed = service("uninstall", *MAC)
    assert removed.exit_code == 0, removed.output
    assert asked.read_text().splitlines() == [f"bootout gui/{os.getuid()}/dev.fruitctl.gateway"]
    assert not (tmp_path / AGENT).exists() and not (tmp_path / APP).exists()
    assert "tccutil reset All dev.fruitctl.gateway" in removed.stdout
    again = json.loads(service("uninstall", *MAC, "--json").stdout)
    assert again["removed"] is False and again["app"]["removed"] is False


@pytest.mark.slow
def test_the_installed_app_runs_the_daemon_and_stops_it_on_sigterm(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What launchd would do with the agent: run ProgramArguments with its environment, then
    stop it with SIGTERM. The launcher's child is the real daemon; it stops cleanly (exit 0,
    socket gone), and its status is the launcher's."""
    with short_home() as home:
        monkeypatch.setenv("FRUITCTL_HOME", str(home))
        assert service("install", *MAC).exit_code == 0
        agent = plistlib.loads((Path(os.environ["HOME"]) / AGENT).read_bytes())
        env = daemon_env(home, **agent["EnvironmentVariables"], FRUITCTL_HTTP__PORT="0")
        proc = subprocess.Popen(
            agent["ProgramArguments"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        daemon = Daemon(proc, home)
        try:
            wait_ready(daemon)
            assert daemon.stop(signal.SIGTERM) == 0
            assert not daemon.socket.exists()
        finally:
            reap(daemon)


def test_systemd_is_unchanged_by_the_app(tmp_path: Path) -> None:
    """On Linux there is no app: the unit runs fruitctl serve itself."""
    result = json.loads(service("install", "--platform", "linux", "--json").stdout)
    assert "app" not in result
    assert not (tmp_path / APP).exists()
    assert f'ExecStart="{sys.executable}"' in Path(result["path"]).read_text()
