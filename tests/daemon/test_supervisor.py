"""``--supervise``: a crashed child is restarted after capped, jittered, growing delays, each crash
and restart a structured event; exits a restart cannot fix end supervision."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from socket_daemon import answers, running, short_home

from fruitctl.daemon.lifecycle import lock_holder
from fruitctl.daemon.supervisor import Backoff, Supervisor
from fruitctl.transports.rpc.client import RpcClient

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process


class Events:
    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    def __call__(self, event: str, **fields: Any) -> None:
        self.seen.append({"event": event, **fields})

    def named(self, event: str) -> list[dict[str, Any]]:
        return [e for e in self.seen if e["event"] == event]


def crashing_child(counter: Path, crashes: int, code: int = 3) -> list[str]:
    """A child that fails ``crashes`` times (exit ``code``), then exits 0."""
    script = (
        "import pathlib, sys\n"
        f"p = pathlib.Path({str(counter)!r})\n"
        "n = int(p.read_text()) + 1 if p.exists() else 1\n"
        "p.write_text(str(n))\n"
        f"sys.exit({code} if n <= {crashes} else 0)\n"
    )
    return [sys.executable, "-c", script]


def test_backoff_doubles_to_its_cap_with_bounded_jitter() -> None:
    backoff = Backoff(base=1, cap=8, jitter=0.5)
    assert [backoff.nominal(n) for n in range(1, 7)] == [1, 2, 4, 8, 8, 8]
    assert backoff.delay(3, draw=lambda: 0.0) == 4
    assert backoff.delay(3, draw=lambda: 1.0) == 2


def test_a_crashing_child_is_restarted_with_growing_delays(tmp_path: Path) -> None:
    events = Events()
    backoff = Backoff(base=0.02, cap=0.08, reset_after=60)
    command = crashing_child(tmp_path / "runs", crashes=5)
    assert Supervisor(command, backoff, events).run() == 0
    assert int((tmp_path / "runs").read_text()) == 6
    crashes, restarts = events.named("daemon_crashed"), events.named("daemon_restarting")
    assert [c["exit_code"] for c in crashes] == [3] * 5
    assert [r["attempt"] for r in restarts] == [1, 2, 3, 4, 5]
    nominal = [r["nominal_delay_s"] for r in restarts]
    assert nominal == [0.02, 0.04, 0.08, 0.08, 0.08]  # doubling, then capped
    for restart in restarts:
        assert restart["nominal_delay_s"] / 2 <= restart["delay_s"] <= restart["nominal_delay_s"]
    assert len(events.named("daemon_started")) == 6
    assert events.seen[-1]["event"] == "daemon_exited" and events.seen[-1]["exit_code"] == 0


def test_a_long_run_resets_the_backoff(tmp_path: Path) -> None:
    events = Events()
    backoff = Backoff(base=0.02, cap=1, reset_after=0)  # every run counts as long
    assert Supervisor(crashing_child(tmp_path / "runs", crashes=3), backoff, events).run() == 0
    assert [r["attempt"] for r in events.named("daemon_restarting")] == [1, 1, 1]


@pytest.mark.parametrize("code", [4, 78])
def test_exits_a_restart_cannot_fix_end_supervision(tmp_path: Path, code: int) -> None:
    events = Events()
    command = crashing_child(tmp_path / "runs", crashes=1, code=code)
    assert Supervisor(command, Backoff(base=0.01), events).run() == code
    assert events.named("daemon_crashed") == []
    assert events.seen[-1] == {
        "event": "daemon_not_restarted",
        "exit_code": code,
        "uptime_s": events.seen[-1]["uptime_s"],
    }


@pytest.mark.slow
def test_a_killed_daemon_is_restarted_end_to_end() -> None:
    fast = {"FRUITCTL_SERVER__RESTART_BASE_SECONDS": "0.05"}
    with short_home() as home, running(home, "--supervise", **fast) as supervisor:
        lock = supervisor.socket.with_suffix(".lock")
        first = lock_holder(lock)
        assert first is not None and first != supervisor.pid
        os.kill(first, signal.SIGKILL)
        second = wait_for_new_holder(lock, first)
        assert answers(supervisor.socket)
        # The daemon names its supervisor, so `server status` can show both.
        client = RpcClient.connect(supervisor.socket, timeout=10)
        assert client is not None
        try:
            info = client.request("system.info")
        finally:
            client.close()
        assert (info["pid"], info["supervisorPid"]) == (second, supervisor.pid)
        assert supervisor.stop() == 0  # SIGTERM reaches the child, which drains
        assert not supervisor.socket.exists()
        assert lock_holder(lock) is None
        events = logged_events(home / "logs" / "fruitctl.log")
    crash = next(e for e in events if e["event"] == "daemon_crashed")
    assert crash["signal"] == "SIGKILL" and crash["level"] == "error"
    restart = next(e for e in events if e["event"] == "daemon_restarting")
    assert restart["attempt"] == 1 and restart["nominal_delay_s"] == 0.05
    started = [e["pid"] for e in events if e["event"] == "daemon_started"]
    assert started == [first, second]


def wait_for_new_holder(lock: Path, old: int) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        holder = lock_holder(lock)
        if holder not in (None, -1, old) and answers(lock.with_suffix(".sock")):
            return holder
        time.sleep(0.05)
    raise AssertionError("the supervisor did not restart the daemon")


def logged_events(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]
