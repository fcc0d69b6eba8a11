"""Every folder fruitctl makes is 0700, the folders above it too, whatever the umask: the home
with its stores, logs and tokens, and ``aai install``'s descriptor folder."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fruitctl.cli.app import app

runner = CliRunner()


@pytest.fixture
def open_umask() -> Iterator[None]:
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def _folders(root: Path) -> dict[str, str]:
    found = {root, *(p for p in root.rglob("*") if p.is_dir())}
    return {str(p.relative_to(root.parent)): oct(stat.S_IMODE(p.stat().st_mode)) for p in found}


def test_the_home_and_everything_under_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_umask: None
) -> None:
    home = tmp_path / "deep" / "fruitctl"
    monkeypatch.setenv("FRUITCTL_HOME", str(home))
    assert runner.invoke(app, ["demo", "--json"]).exit_code == 0
    token = runner.invoke(app, ["auth", "token", "--name", "probe", "--json"])
    assert token.exit_code == 0, token.output
    folders = _folders(tmp_path / "deep")
    assert len(folders) >= 2
    assert set(folders.values()) == {"0o700"}, folders


def test_aai_install_makes_its_folders_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_umask: None
) -> None:
    monkeypatch.setenv("FRUITCTL_HOME", str(tmp_path / "home"))
    done = runner.invoke(app, ["aai", "install", "--json"])
    assert done.exit_code == 0, done.output
    written = Path(json.loads(done.stdout)["path"])
    assert written.is_file()
    folders = _folders(tmp_path / "home")
    assert written.parent.relative_to(tmp_path).as_posix() in folders
    assert set(folders.values()) == {"0o700"}, folders
