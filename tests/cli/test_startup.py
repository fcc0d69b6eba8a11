"""Start-up: the ``fruitctl`` entry point pauses Python's cyclic collector while the CLI loads
and turns it back on - with what loading made frozen out of its way - as the command starts; a
caller that never paused it (a test, a library user) finds it untouched. And a command loads
only its own module: the others are built when asked for by name."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fruitctl.cli.app import COMMANDS, app

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


@pytest.mark.process
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


LOADED = """
import sys
sys.argv = ["fruitctl", *sys.argv[1:]]
from fruitctl.__main__ import main
try:
    main()
except SystemExit:
    pass
print(sorted(m for m in sys.modules if m.startswith(("fruitctl.cli.", "rich.table"))),
      file=sys.stderr)
"""


def _modules_after(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *args], capture_output=True, text=True, timeout=120
    )
    return done.stderr


@pytest.mark.process
def test_a_command_loads_its_own_module_and_no_other(home: Path) -> None:
    loaded = _modules_after("ping", "--json")
    assert "fruitctl.cli.system" in loaded
    for other in ("fruitctl.cli.reminders", "fruitctl.cli.server", "fruitctl.cli.serve"):
        assert other not in loaded
    assert "rich.table" not in loaded  # tables are drawn by other commands


def test_help_lists_every_command_and_a_typo_gets_a_hint(home: Path) -> None:
    listing = runner.invoke(app, ["--help"])
    assert listing.exit_code == 0
    commands = listing.output.split("Commands:")[1].split("Exit codes:")[0]  # the epilog after
    entries = [line for line in commands.splitlines() if line[:3].strip() and line.strip()]
    shown = {line.split()[0] for line in entries}  # not the wrapped lines of a long help
    assert shown == {"lists", "demo", *COMMANDS}
    typo = runner.invoke(app, ["remindrs"])
    assert typo.exit_code == 2
    assert "Did you mean 'reminders'?" in typo.output


def test_a_lazily_built_group_works_like_the_others(home: Path) -> None:
    added = runner.invoke(app, ["reminders", "add", "--title", "Buy milk", "--json"])
    assert added.exit_code == 0, added.output
    listed = runner.invoke(app, ["reminders", "list", "--json"])
    assert "Buy milk" in listed.output
