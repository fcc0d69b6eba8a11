"""fruitctl's own files are out of the file tools' reach on every layout: an agent's read_file of
the log, the daemon's token, credentials.json, governance.yaml and the stores is refused, even
where governance.yaml allows every path, and a person's own write (the approval itself) too."""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest
from platformdirs.macos import MacOS

from fruitctl import bootstrap
from fruitctl.cli import remote
from fruitctl.daemon.lifecycle import RuntimeFiles
from fruitctl.domain.actors import Actor
from fruitctl.paths import Paths
from fruitctl.private import make_dirs

AGENT = Actor("agent", "probe")
HUMAN = Actor("human", "tester")
EVERYWHERE = (
    "tools:\n"
    "  read_file: {allowed_paths: ['/**']}\n"
    "  list_directory: {allowed_paths: ['/**']}\n"
    "  write_file: {allowed_paths: ['/**']}\n"
)
LAYOUTS = ["fruitctl-home", "linux-xdg-runtime", "linux-no-runtime", "macos"]


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of its own for the test, without the developer's XDG folders."""
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
        monkeypatch.delenv(name, raising=False)
    # Built as a Mac would be, the backends must still be the embedded ones.
    monkeypatch.setenv("FRUITCTL_REMINDERS__BACKEND", "local")
    monkeypatch.setenv("FRUITCTL_CALENDAR__BACKEND", "local")
    return home


def _layout(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if name != "fruitctl-home":
        monkeypatch.delenv("FRUITCTL_HOME")
    if name == "linux-xdg-runtime":
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg-run"))
    if name == "macos":
        monkeypatch.setattr(platformdirs, "PlatformDirs", MacOS)


@pytest.fixture(params=LAYOUTS)
def app(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    user_home: Path,
) -> Iterator[bootstrap.App]:
    """A gateway whose governance.yaml lets the file tools use every path, on one layout."""
    _layout(request.param, tmp_path, monkeypatch)
    with monkeypatch.context() as during_build:
        if request.param == "macos":
            during_build.setattr(sys, "platform", "darwin")
        paths = Paths.resolve(os.environ)
        make_dirs(paths.config_file.parent)  # 0700, as fruitctl makes it
        paths.governance_file.write_text(EVERYWHERE)
        built = bootstrap.build()
        built.gateway  # noqa: B018 - built (and its log opened) on this layout
    yield built
    built.close()


def _secrets(app: bootstrap.App) -> dict[str, Path]:
    """fruitctl's own files, each made where this layout keeps it."""
    paths = app.config.paths
    token = RuntimeFiles(paths.socket_file).token
    make_dirs(token.parent)
    token.write_text("daemon-token\n")
    credentials = remote.save("http://gateway.example:8765", "agent-token-secret")
    log = paths.log_dir / "fruitctl.log"
    assert log.is_file()  # written by the gateway itself
    return {
        "log": log,
        "token": token,
        "credentials": credentials,
        "governance": paths.governance_file,
        "state": paths.state_db,
    }


def test_the_layout_puts_its_files_where_the_platform_does(
    app: bootstrap.App, user_home: Path
) -> None:
    paths = app.config.paths
    if "FRUITCTL_HOME" in os.environ:
        assert paths.log_dir.parent == paths.config_file.parent
    elif paths.config_file.is_relative_to(user_home / "Library"):
        assert paths.log_dir == user_home / "Library" / "Logs" / "fruitctl"
        assert paths.run_dir.is_relative_to(user_home / "Library" / "Caches")
    else:
        assert paths.log_dir == user_home / ".local" / "state" / "fruitctl" / "log"
        assert paths.config_file.parent == user_home / ".config" / "fruitctl"
    # Outside the data folder on the platforms' own layouts: protected by being named.
    assert paths.log_dir in paths.owned() and paths.run_dir in paths.owned()


def test_an_agent_cannot_read_fruitctls_own_files(app: bootstrap.App, user_home: Path) -> None:
    (user_home / "notes.txt").write_text("mine to share\n")
    readable = app.gateway.invoke("read_file", {"path": str(user_home / "notes.txt")}, AGENT)
    assert readable.success, readable.error  # the rules do allow every other path
    for what, path in _secrets(app).items():
        result = app.gateway.invoke("read_file", {"path": str(path)}, AGENT)
        assert result.error_code == "permission_denied", (what, result.output)
        assert "fruitctl's own files" in (result.error or ""), what
        assert "agent-token-secret" not in str(result.model_dump())


def test_a_symlink_to_them_is_refused_too(app: bootstrap.App, user_home: Path) -> None:
    secrets = _secrets(app)
    (user_home / "innocent.txt").symlink_to(secrets["credentials"])
    (user_home / "logs").symlink_to(secrets["log"].parent)
    for path in (user_home / "innocent.txt", user_home / "logs" / "fruitctl.log"):
        result = app.gateway.invoke("read_file", {"path": str(path)}, AGENT)
        assert result.error_code == "permission_denied", path


def test_listing_leaves_them_out(app: bootstrap.App) -> None:
    data = app.config.paths.local_db.parent
    listed = app.gateway.invoke("list_directory", {"path": str(data)}, AGENT)
    assert listed.error_code == "permission_denied"
    above = app.gateway.invoke("list_directory", {"path": str(data.parent)}, AGENT)
    assert above.success, above.error
    assert data.is_dir() and data.name not in {entry["name"] for entry in above.output["entries"]}


def test_no_one_may_write_them_not_even_a_person(app: bootstrap.App) -> None:
    governance = app.config.paths.governance_file
    before = governance.read_text()
    loosened = "tools: {}\n"
    mine = app.gateway.invoke("write_file", {"path": str(governance), "content": loosened}, HUMAN)
    assert mine.error_code == "permission_denied"
    app.modes.set("ALERT", HUMAN.label)  # where an agent's write would become a proposal
    theirs = app.gateway.invoke("write_file", {"path": str(governance), "content": loosened}, AGENT)
    assert theirs.error_code == "permission_denied"  # refused, not filed for approval
    assert governance.read_text() == before


def test_the_workspace_inside_the_data_folder_stays_usable(app: bootstrap.App) -> None:
    workspace = app.config.paths.workspace
    workspace.mkdir(parents=True, exist_ok=True)
    written = app.gateway.invoke(
        "write_file", {"path": str(workspace / "draft.txt"), "content": "hi"}, AGENT
    )
    assert written.success, written.error
    read = app.gateway.invoke("read_file", {"path": str(workspace / "draft.txt")}, AGENT)
    assert read.output["content"] == "hi"


def test_a_workspace_that_leads_back_into_the_data_folder_does_not(app: bootstrap.App) -> None:
    paths = app.config.paths
    paths.workspace.parent.mkdir(parents=True, exist_ok=True)
    paths.workspace.symlink_to(paths.workspace.parent)
    result = app.gateway.invoke("read_file", {"path": str(paths.workspace / "state.db")}, AGENT)
    assert result.error_code == "permission_denied"


def test_every_refusal_is_recorded(app: bootstrap.App) -> None:
    log = _secrets(app)["log"]
    result = app.gateway.invoke("read_file", {"path": str(log)}, AGENT)
    app.gateway.flush()
    with sqlite3.connect(app.config.paths.state_db) as db:
        row = db.execute(
            "SELECT outcome, error_code FROM tool_calls WHERE trace_id = ?", (result.trace_id,)
        ).fetchone()
    assert row == ("blocked", "permission_denied")


def test_the_daemons_files_beside_a_socket_elsewhere_are_owned(tmp_path: Path) -> None:
    socket = tmp_path / "shared" / "fruitctl.sock"
    paths = Paths.resolve(
        {"FRUITCTL_HOME": str(tmp_path / "home"), "FRUITCTL_SOCKET_PATH": str(socket)}
    )
    files = RuntimeFiles(paths.socket_file)
    owned = paths.owned()
    assert {files.socket, files.lock, files.pid, files.token} <= set(owned)
    assert socket.parent not in owned  # a shared folder is not made fruitctl's
    assert paths.agent_socket.parent in owned
