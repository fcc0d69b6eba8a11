"""Small real projects for the code tools' tests: a git repository with every kind of change,
a Python package with a ruff finding and a mypy error, and a test suite with one passing and one
failing test. Each is made with real git and real files; nothing is faked."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
}


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | GIT_ENV
    done = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def make_repo(where: Path) -> Path:
    """A repository on ``main`` one commit ahead of and one behind its upstream ``base``, with
    a staged new file, an unstaged change and an untracked file."""
    repo = where / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "tracked.txt").write_text("one\n")
    git(repo, "add", "tracked.txt")
    git(repo, "commit", "-q", "-m", "first")
    git(repo, "branch", "base")
    git(repo, "switch", "-q", "base")
    (repo / "theirs.txt").write_text("theirs\n")
    git(repo, "add", "theirs.txt")
    git(repo, "commit", "-q", "-m", "on base")
    git(repo, "switch", "-q", "main")
    (repo / "ours.txt").write_text("ours\n")
    git(repo, "add", "ours.txt")
    git(repo, "commit", "-q", "-m", "on main")
    git(repo, "branch", "-q", "--set-upstream-to=base")
    (repo / "staged.txt").write_text("new\n")
    git(repo, "add", "staged.txt")
    (repo / "tracked.txt").write_text("one\ntwo\n")
    (repo / "new file.txt").write_text("untracked\n")
    return repo


def make_lint_project(where: Path) -> Path:
    """A package with an unused import (ruff F401) and a wrong return type (mypy)."""
    project = where / "lintme"
    project.mkdir(parents=True)
    (project / "bad.py").write_text("import os\n\n\ndef name(x: int) -> str:\n    return x\n")
    return project


def make_test_project(where: Path) -> Path:
    """One passing test and one failing test that prints before it fails."""
    project = where / "suite"
    project.mkdir(parents=True)
    (project / "test_things.py").write_text(
        "def test_passes():\n    assert 1 + 1 == 2\n\n\n"
        "def test_fails():\n    print('said before failing')\n    assert 'apple' == 'pear'\n"
    )
    return project
