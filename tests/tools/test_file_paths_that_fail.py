"""A path the system cannot resolve - a symlink loop, a name too long, a link swapped or removed
while the policy resolves it - is a stable error through the gateway, with its call record;
nothing raises out of ``Gateway.invoke``."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import NotFound, PermissionDenied
from fruitctl.domain.path_rules import PathRules
from fruitctl.tools.model import ToolResult

AGENT = Actor("agent", "probe")


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


@pytest.fixture
def workspace(app: bootstrap.App) -> Path:
    folder = app.config.paths.workspace
    folder.mkdir(parents=True)
    (folder / "note.txt").write_text("note\n")
    return folder


def _recorded(app: bootstrap.App, result: ToolResult) -> tuple[str, str] | None:
    app.gateway.flush()
    with sqlite3.connect(app.config.paths.state_db) as db:
        row = db.execute(
            "SELECT outcome, error_code FROM tool_calls WHERE trace_id = ?", (result.trace_id,)
        ).fetchone()
    return None if row is None else (row[0], row[1])


def _calls(workspace: Path, path: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("read_file", {"path": path}),
        ("list_directory", {"path": path}),
        ("write_file", {"path": path, "content": "x"}),
    ]


def test_a_symlink_loop_is_refused_and_recorded(app: bootstrap.App, workspace: Path) -> None:
    (workspace / "loop").symlink_to(workspace / "loop2")
    (workspace / "loop2").symlink_to(workspace / "loop")
    for path in (workspace / "loop", workspace / "loop" / "inner.txt"):
        for tool, args in _calls(workspace, str(path)):
            result = app.gateway.invoke(tool, args, AGENT)
            assert result.error_code == "permission_denied", (tool, path, result.error)
            assert _recorded(app, result) is not None, (tool, path)


@pytest.mark.parametrize(
    "tail", ["a" * 300, "/".join(["b" * 200] * 30)], ids=["a name too long", "a path too long"]
)
def test_an_overlong_path_is_invalid_and_recorded(
    app: bootstrap.App, workspace: Path, tail: str
) -> None:
    for tool, args in _calls(workspace, f"{workspace}/{tail}"):
        result = app.gateway.invoke(tool, args, AGENT)
        assert result.error_code == "invalid_params", (tool, result.error)
        assert "too long" in (result.error or "")
        assert _recorded(app, result) is not None, tool


class Swap:
    """Changes ``link`` on disk right after ``realpath`` has looked at it and found a link, and
    before it reads the link: the race a path swapped under the policy's check runs into."""

    def __init__(self, link: Path, into: str) -> None:
        self.link, self.into, self.done = link, into, False
        self._lstat = os.lstat

    def __call__(self, path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        found = self._lstat(path, *args, **kwargs)
        if not self.done and os.fspath(path) == str(self.link) and stat.S_ISLNK(found.st_mode):
            self.done = True
            self.link.unlink()
            if self.into == "a file":
                self.link.write_text("swapped in\n")
        return found


@pytest.mark.parametrize(
    ("into", "code"), [("a file", "permission_denied"), ("nothing", "not_found")]
)
@pytest.mark.parametrize("tool", ["read_file", "list_directory", "write_file"])
def test_a_link_that_changes_while_it_is_resolved(
    app: bootstrap.App,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    tool: str,
    into: str,
    code: str,
) -> None:
    (workspace / "sub").mkdir()
    link = workspace / "via"
    link.symlink_to(workspace / "sub")
    swap = Swap(link, into)
    monkeypatch.setattr(os, "lstat", swap)
    args = dict(_calls(workspace, str(link / "new.txt")))[tool]
    result = app.gateway.invoke(tool, args, AGENT)
    monkeypatch.undo()
    assert swap.done  # the race did happen, inside the policy's resolution
    assert result.error_code == code, result.error
    assert _recorded(app, result) == ("blocked", code)


def test_the_rules_translate_a_failed_resolution(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = PathRules.from_patterns([f"{workspace}/**"], [])
    link = workspace / "via"
    link.symlink_to(workspace)
    monkeypatch.setattr(os, "lstat", Swap(link, "a file"))
    with pytest.raises(PermissionDenied, match="changed while it was being checked"):
        rules.check(str(link / "note.txt"))
    link.unlink()
    link.symlink_to(workspace)
    monkeypatch.setattr(os, "lstat", Swap(link, "nothing"))
    with pytest.raises(NotFound):
        rules.check(str(link / "note.txt"), for_write=True)
