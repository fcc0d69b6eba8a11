"""The two lanes: ``make test`` runs every test, ``make test-fast`` all but those marked slow.
Read from ``make --dry-run`` (the recipe lines, nothing run), as tests/test_make_output.py does."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
MAKE = shutil.which("make")
TIMEOUT_S = 120

pytestmark = [
    pytest.mark.skipif(MAKE is None, reason="needs GNU make on PATH"),
    pytest.mark.process,
]


def _pytest_line(target: str, tmp_path: Path) -> list[str]:
    assert MAKE is not None
    done = subprocess.run(
        [MAKE, "--dry-run", "--always-make", target, f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    pytest_bin = str(tmp_path / "venv" / "bin" / "pytest")
    (line,) = [shlex.split(x) for x in done.stdout.splitlines() if x.split()[:1] == [pytest_bin]]
    return line


def test_make_test_runs_both_lanes(tmp_path: Path) -> None:
    line = _pytest_line("test", tmp_path)
    assert not any(arg.startswith("-m") for arg in line), line


def test_make_test_fast_leaves_out_the_slow_lane(tmp_path: Path) -> None:
    line = _pytest_line("test-fast", tmp_path)
    assert line[line.index("-m") + 1] == "not slow and not process" and "-rfEs" in line
