"""``fruitctl serve --supervise``: run the daemon as a child and restart it when it crashes.

Seed 000's crash handling: capped exponential backoff with jitter, and a structured event for each
crash and restart (``daemon_crashed``, ``daemon_restarting``; also ``daemon_started``,
``daemon_exited``, ``daemon_not_restarted``). The nominal delay doubles from ``base`` up to ``cap``;
the delay slept is that minus up to half of it (jitter, so a fleet of crashed daemons does not
restart in step). A child that ran for ``reset_after`` seconds starts the count afresh.

A clean exit (0) ends supervision. So do exits that a restart cannot fix: another instance already
serves (4) or the configuration is wrong (78). SIGTERM/SIGINT go to the child, which drains; then
the supervisor exits 0.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

from fruitctl.transports.service_info import SUPERVISOR_ENV

FINAL_EXITS = frozenset({0, 2, 4, 78})  # ok, usage, already running, configuration
POLL_S = 0.05


@dataclass(frozen=True)
class Backoff:
    base: float = 1.0
    cap: float = 60.0
    reset_after: float = 60.0
    jitter: float = 0.5

    def nominal(self, failures: int) -> float:
        """The delay before restart number ``failures`` (1, 2, …), before jitter."""
        return min(self.cap, self.base * float(2 ** max(0, failures - 1)))

    def delay(self, failures: int, draw: Callable[[], float] = random.random) -> float:
        return self.nominal(failures) * (1 - self.jitter * draw())


Emit = Callable[..., None]


class Supervisor:
    def __init__(self, command: list[str], backoff: Backoff, emit: Emit) -> None:
        self.command = command
        self.backoff = backoff
        self._emit = emit
        self._child: subprocess.Popen[bytes] | None = None
        self._stopping = False

    def run(self) -> int:
        previous = {s: signal.signal(s, self._on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            return self._loop()
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def _loop(self) -> int:
        failures = 0
        while True:
            started = time.monotonic()
            code = self._run_child()
            uptime = round(time.monotonic() - started, 3)
            if self._stopping or code in FINAL_EXITS:
                event = "daemon_exited" if self._stopping or code == 0 else "daemon_not_restarted"
                self._emit(event, exit_code=code, uptime_s=uptime)
                return 0 if self._stopping else code
            failures = 1 if uptime >= self.backoff.reset_after else failures + 1
            delay = round(self.backoff.delay(failures), 3)
            self._emit("daemon_crashed", **_cause(code), uptime_s=uptime, failures=failures)
            self._emit(
                "daemon_restarting",
                attempt=failures,
                delay_s=delay,
                nominal_delay_s=self.backoff.nominal(failures),
            )
            if not self._sleep(delay):
                self._emit("daemon_exited", exit_code=None, uptime_s=0)
                return 0

    def _run_child(self) -> int:
        # The child tells who watches it (system.info's supervisorPid).
        env = {**os.environ, SUPERVISOR_ENV: str(os.getpid())}
        self._child = subprocess.Popen(self.command, env=env)
        self._emit("daemon_started", pid=self._child.pid)
        code = self._child.wait()
        self._child = None
        return code

    def _sleep(self, seconds: float) -> bool:
        """Wait out a restart delay; False when told to stop meanwhile."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self._stopping:
                return False
            time.sleep(min(POLL_S, max(0.0, deadline - time.monotonic())))
        return not self._stopping

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._stopping = True
        child = self._child
        if child is not None and child.poll() is None:
            child.send_signal(signum)  # it drains and exits 0; wait() then returns


def _cause(code: int) -> dict[str, Any]:
    if code >= 0:
        return {"exit_code": code, "signal": None}
    try:  # killed by a signal
        name = signal.Signals(-code).name
    except ValueError:
        name = str(-code)
    return {"exit_code": None, "signal": name}
