"""What ``make test`` prints: why each skipped test was skipped, and no npm notices. Read from
``make --dry-run`` (every recipe line it would run, nothing run), on a .venv path of the test's
own so the checkout's is never looked at."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAKE = shutil.which("make")
TIMEOUT_S = 120  # make reading its own Makefile: well under a second when healthy

pytestmark = [
    pytest.mark.skipif(MAKE is None, reason="needs GNU make on PATH"),
    pytest.mark.process,
]


def _recipe(tmp_path: Path) -> list[str]:
    assert MAKE is not None
    done = subprocess.run(
        [MAKE, "--dry-run", "--always-make", "test", f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_make_test_names_the_reason_for_every_skip(tmp_path: Path) -> None:
    pytest = str(tmp_path / "venv" / "bin" / "pytest")
    (pytest_line,) = [line for line in _recipe(tmp_path) if line.split()[0] == pytest]
    # f and E too: a -r without them leaves the failures out of the summary.
    assert "-rfEs" in pytest_line.split()


def test_make_test_installs_the_inspector_without_npm_notices(tmp_path: Path) -> None:
    (npm,) = [line for line in _recipe(tmp_path) if "npm ci" in line]
    for quiet in ("--no-fund", "--no-audit", "--no-update-notifier", "--loglevel=error"):
        assert quiet in npm.split(), npm
