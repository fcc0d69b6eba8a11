"""The ``fruitctl`` entry point pauses Python's cyclic collector while the CLI loads and turns
it back on - with what loading made frozen out of its way - as the command starts; a caller
that never paused it (a test, a library user) finds it untouched."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fruitctl.cli.app import app

runner = CliRunner()
PROBE = """
import gc, sys
import fruitctl.cli.app as cli
seen = []
original = cli._collect_again
def watched():
    seen.append(("before", gc.isenabled()))
    original()
    seen.append(("after", gc.isenabled(), gc.get_freeze_count() > 0))
cli._collect_again = watched
sys.argv = ["fruitctl", "ping", "--json"]
from fruitctl.__main__ import main
try:
    main()
except SystemExit:
    pass
print(seen, file=sys.stderr)
"""


@pytest.fixture
def paused() -> Iterator[None]:
    gc.disable()
    yield
    gc.unfreeze()
    gc.enable()


def test_the_entry_point_loads_with_the_collector_paused_and_resumes_it(home: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True
    )
    assert "[('before', False), ('after', True, True)]" in done.stderr


def test_a_command_resumes_a_paused_collector(home: Path, paused: None) -> None:
    assert runner.invoke(app, ["ping", "--json"]).exit_code == 0
    assert gc.isenabled() and gc.get_freeze_count() > 0


def test_a_running_collector_is_left_alone(home: Path) -> None:
    frozen = gc.get_freeze_count()
    assert runner.invoke(app, ["ping", "--json"]).exit_code == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen
