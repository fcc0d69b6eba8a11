"""``fruitctl mcp`` answers ``initialize`` before it loads what only a tool needs: the gateway,
the catalog's services, the store (SQLAlchemy, its migrations), the backends (CalDAV, EventKit,
Things), the sandbox and web search. They load when the client first lists or calls a tool.

The server runs as a process of its own, as a client starts it; a wrapper writes the names of
the modules it holds as it exits, so the test reads what the process loaded - once after only the
handshake, once after a first call (which must load them: the wrapper sees imports)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_wire import INITIALIZED, initialize
from pipe_wire import Wire, spawn

import fruitctl

pytestmark = pytest.mark.process

EXIT_TIMEOUT_S = 15.0
WRAPPER = (
    "import atexit, sys\n"
    "out = sys.argv[1]\n"
    "atexit.register(lambda: open(out, 'w').write('\\n'.join(sorted(sys.modules))))\n"
    "sys.argv = ['fruitctl', 'mcp']\n"
    "from fruitctl.__main__ import main\n"
    "main()\n"
)
SOURCE = str(Path(fruitctl.__file__).resolve().parents[1])  # this checkout's fruitctl
HEAVY = (
    "sqlalchemy",
    "alembic",
    "caldav",
    "niquests",
    "icalendar",
    "recurring_ical_events",
    "dateutil",
    "ddgs",
    "fastapi",
    "psutil",
    "fruitctl.store",
    "fruitctl.gateway",
    "fruitctl.sandbox",
    "fruitctl.backends.local",
    "fruitctl.backends.caldav",
    "fruitctl.backends.things",
    "fruitctl.backends.search",
    "fruitctl.approvals.engine",
    "fruitctl.policy.engine",
)
"""Loaded by no ``fruitctl mcp`` before its first tool, each with every module under it."""
SERVICES = tuple(
    f"fruitctl.capabilities.{subject}.{part}"
    for subject in ("reminders", "calendar", "things", "files", "system", "web", "containers")
    for part in ("service", "tools")
)
INITIALIZE = initialize("startup-test", "0", protocol="2025-11-25")


def loaded_after(home: Path, tmp_path: Path, messages: list[dict[str, object]]) -> set[str]:
    """The modules ``fruitctl mcp`` held when it exited after answering ``messages``."""
    out = tmp_path / "modules.txt"
    env = {
        **os.environ,
        "FRUITCTL_HOME": str(home),
        "FRUITCTL_IN_PROCESS": "1",
        "PYTHONPATH": os.pathsep.join([SOURCE, os.environ.get("PYTHONPATH", "")]),
    }
    proc = spawn([sys.executable, "-c", WRAPPER, str(out)], env, subprocess.DEVNULL)
    try:
        wire = Wire(proc)
        asked = set()
        for message in messages:
            wire.send(message)
            if "id" in message:
                asked.add(int(str(message["id"])))
        replies = wire.replies(asked)
        assert all("result" in reply for reply in replies.values()), replies
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=EXIT_TIMEOUT_S) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()
    return set(out.read_text().split())


def under(found: set[str], roots: tuple[str, ...]) -> list[str]:
    return sorted(m for m in found if any(m == r or m.startswith(f"{r}.") for r in roots))


@pytest.mark.slow
def test_initialize_is_answered_without_the_store_the_backends_or_the_services(
    home: Path, tmp_path: Path
) -> None:
    found = loaded_after(home, tmp_path, [INITIALIZE, INITIALIZED])
    assert "mcp.server.lowlevel" in found  # the wrapper saw the server run
    assert under(found, HEAVY) == []
    assert under(found, SERVICES) == []


@pytest.mark.slow
def test_the_first_call_loads_what_it_needs(home: Path, tmp_path: Path) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "query_reminders", "arguments": {}},
    }
    found = loaded_after(home, tmp_path, [INITIALIZE, INITIALIZED, call])
    assert {"sqlalchemy", "fruitctl.gateway", "fruitctl.backends.local"} <= found
    assert "fruitctl.capabilities.reminders.service" in found


CATALOG = (
    "import sys\n"
    "from fruitctl.capabilities import all_tools\n"
    "all_tools()\n"
    "print('\\n'.join(sorted(sys.modules)))\n"
)
READERS = (
    "psutil",
    "sqlalchemy",
    "fruitctl.store",
    "fruitctl.backends",
    "fruitctl.capabilities.reminders.service",
    "fruitctl.capabilities.calendar.service",
    "fruitctl.capabilities.things.service",
    "fruitctl.capabilities.files.service",
    "fruitctl.capabilities.system.service.metrics",
    "fruitctl.capabilities.system.service.processes",
    "fruitctl.capabilities.system.service.logs",
)
"""What runs a tool, never what declares it: none loads with the catalog."""


def test_the_catalog_is_its_declarations_without_the_services_that_run_them() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SOURCE, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", CATALOG],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    found = set(done.stdout.split())
    assert "fruitctl.capabilities.system.tools" in found  # the catalog did load
    assert under(found, READERS) == []


@pytest.mark.slow
def test_a_governance_file_that_does_not_load_is_the_first_requests_error_until_fixed(
    home: Path,
) -> None:
    home.mkdir(parents=True, exist_ok=True)
    rules = home / "governance.yaml"
    rules.write_text("modes: [broken\n")
    env = {**os.environ, "FRUITCTL_HOME": str(home), "FRUITCTL_IN_PROCESS": "1"}
    env["PYTHONPATH"] = os.pathsep.join([SOURCE, os.environ.get("PYTHONPATH", "")])
    proc = spawn([sys.executable, "-m", "fruitctl", "mcp"], env)
    try:
        wire = Wire(proc)
        wire.send(INITIALIZE)
        assert "result" in wire.replies({1})[1]
        wire.send(INITIALIZED)
        wire.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        failed = wire.replies({2})[2]["error"]
        assert failed["code"] == -32603
        assert f"{rules}:2: not valid YAML" in failed["message"]
        rules.unlink()  # fixed: the next request builds the gateway
        wire.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}})
        assert wire.replies({3})[3]["result"]["tools"]
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=EXIT_TIMEOUT_S) == 0
        assert proc.stderr is not None
        assert "governance.yaml" in proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
