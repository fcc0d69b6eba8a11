"""fruitctl.app's native launcher, compiled here with the system's ``cc`` and run for real.

It is built pointing at a small Python script instead of ``fruitctl serve``: the script writes
what it sees (its arguments, its parent, its environment, the signal it got) to a file, so each
test can tell what the launcher did. The launcher must start the command as its child (never
exec it: macOS would no longer attribute the requests to the app), hand on SIGTERM, SIGINT and
SIGHUP, and exit with the child's status (128 + n when signal n ended it).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from needs import missing

from fruitctl.daemon import bundle

# Each test here starts another process.
pytestmark = pytest.mark.process
DEADLINE_S = 60.0  # far beyond a healthy start (well under a second); only a hang reaches it
ODD_ARGUMENTS = ["a b", '$HOME; "x" \\ `id` é', "", "--flag=1\nsecond line"]
CHILD = """
import json, os, signal, sys

record, mode = os.environ["CHILD_RECORD"], os.environ["CHILD_MODE"]

def write(what):
    with open(record, "a") as handle:
        handle.write(json.dumps(what) + "\\n")

def on_signal(number, frame):
    write({"signal": signal.Signals(number).name})
    sys.exit(12)

for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(number, on_signal)
write({"argv": sys.argv[1:], "pid": os.getpid(), "ppid": os.getppid(),
       "home": os.environ.get("FRUITCTL_HOME")})
if mode.startswith("exit "):
    sys.exit(int(mode.split()[1]))
if mode == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
signal.pause()
"""


@pytest.fixture(scope="module")
def launcher(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("cc") is None:
        missing("a C compiler (cc): on a Mac, xcode-select --install; on Debian, apt install gcc")
    folder = tmp_path_factory.mktemp("launcher")
    script = folder / "child.py"
    script.write_text(CHILD)
    app = bundle.app_in(folder, [sys.executable, str(script), *ODD_ARGUMENTS])
    bundle.build(app)
    return app.executable


@pytest.fixture
def record(tmp_path: Path) -> Path:
    return tmp_path / "record.jsonl"


@pytest.fixture
def start(launcher: Path, record: Path) -> Iterator[Any]:
    started: list[subprocess.Popen[bytes]] = []

    def run(mode: str, *args: str) -> subprocess.Popen[bytes]:
        env = {**os.environ, "CHILD_RECORD": str(record), "CHILD_MODE": mode}
        proc = subprocess.Popen([str(launcher), *args], env=env, stderr=subprocess.PIPE)
        started.append(proc)
        return proc

    yield run
    for proc in started:  # a test that failed half-way leaves nothing running
        if proc.poll() is None:
            proc.kill()
            proc.wait(DEADLINE_S)
        if proc.stderr is not None:
            proc.stderr.close()


def lines(record: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []


def wait_started(record: Path) -> dict[str, Any]:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        if seen := lines(record):
            return seen[0]
        time.sleep(0.02)
    raise AssertionError("the launcher's child never started")


@pytest.mark.parametrize(("code", "expected"), [(0, 0), (3, 3), (78, 78)])
def test_the_launcher_exits_with_the_childs_status(
    start: Any, record: Path, code: int, expected: int
) -> None:
    assert start(f"exit {code}").wait(DEADLINE_S) == expected
    assert len(lines(record)) == 1  # started once


def test_a_child_killed_by_a_signal_is_128_plus_its_number(start: Any) -> None:
    assert start("kill").wait(DEADLINE_S) == 128 + signal.SIGKILL


def test_the_command_is_started_as_a_child_with_its_arguments_exactly(
    start: Any, record: Path, home: Path
) -> None:
    """Never exec'd (its own pid, the launcher its parent), every byte of every argument kept
    (no shell), the launcher's own arguments ignored, the environment passed on."""
    proc = start("exit 0", "--port", "1; touch /tmp/owned")
    assert proc.wait(DEADLINE_S) == 0
    seen = wait_started(record)
    assert seen["argv"] == ODD_ARGUMENTS
    assert seen["pid"] != proc.pid and seen["ppid"] == proc.pid
    assert seen["home"] == str(home)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_to_the_launcher_is_handed_to_the_child(
    start: Any, record: Path, signum: signal.Signals
) -> None:
    proc = start("wait")
    wait_started(record)
    proc.send_signal(signum)
    # The launcher outlived the signal and answered with the status the child chose (12).
    assert proc.wait(DEADLINE_S) == 12
    assert lines(record)[1:] == [{"signal": signum.name}]


def test_a_command_that_cannot_start_is_a_configuration_error_saying_what_to_do(
    tmp_path: Path,
) -> None:
    if shutil.which("cc") is None:
        missing("a C compiler (cc): on a Mac, xcode-select --install; on Debian, apt install gcc")
    gone = tmp_path / "old-venv" / "bin" / "python"
    app = bundle.app_in(tmp_path, [str(gone), "-m", "fruitctl", "serve"])
    bundle.build(app)
    done = subprocess.run([str(app.executable)], capture_output=True, text=True, timeout=DEADLINE_S)
    assert done.returncode == 78
    assert str(gone) in done.stderr and "fruitctl service install" in done.stderr
