"""DEGRADED by itself: the gateway lowers its own mode when the machine cannot take writes well.

Three causes, any one enough: free space in fruitctl's data folder under ``[health]
min_free_disk_mb``, available memory under ``min_available_memory_mb`` (or memory in use over
``max_memory_percent``), and a store that answered "disk full" (``StorageFault`` with reason
``full``: SQLite's FULL, ENOSPC). Then the mode becomes DEGRADED through the one mode store,
set by "fruitctl (automatic): <cause>" with the mode it came from kept beside it; governance's
DEGRADED rules apply (writes wait for approval by default).

It returns to that mode once no cause has been seen for ``recover_after_seconds`` - unless
anyone set the mode meanwhile (``ModeStore.set`` ends the automatic record): a person's choice
is never taken back. A mode already DEGRADED or LOCKDOWN by a person's choice is left alone.

``check`` is cheap to call before every write: it reads the disk and memory at most once per
``check_every_seconds``; the daemon also calls it on that cadence (``watch``).
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fruitctl.config import HealthConfig
from fruitctl.domain.errors import FruitctlError, StorageFault
from fruitctl.policy.modes import ModeStore

MB = 1024 * 1024


@dataclass(frozen=True)
class Reading:
    """The machine as seen now."""

    free_disk_mb: float
    available_memory_mb: float
    memory_percent: float


Reader = Callable[[], Reading]
Clock = Callable[[], float]
Told = Callable[[str, dict[str, Any]], None]
"""Where a change of mode is told (the structured log): event name, fields."""


def machine(folder: Path) -> Reader:
    """The real reading: the disk holding ``folder`` and the machine's memory."""

    def read() -> Reading:
        import psutil  # when the machine is first read: a one-call process may never ask

        memory = psutil.virtual_memory()
        return Reading(
            free_disk_mb=shutil.disk_usage(folder).free / MB,
            available_memory_mb=memory.available / MB,
            memory_percent=float(memory.percent),
        )

    return read


def disk_full(error: BaseException) -> bool:
    """Whether ``error`` is a store that answered "disk full"."""
    return isinstance(error, StorageFault) and error.details.get("reason") == "full"


class Health:
    def __init__(
        self,
        modes: ModeStore,
        settings: HealthConfig,
        read: Reader,
        clock: Clock = time.monotonic,
        told: Told | None = None,
    ) -> None:
        self._modes = modes
        self._settings = settings
        self._read = read
        self._clock = clock
        self._told = told
        self._lock = threading.Lock()
        self._looked: float | None = None
        self._first: float | None = None  # this watcher's first look
        self._fault: str | None = None  # a store's "disk full", until the next look
        self._last_cause: float | None = None  # when a cause was last seen

    @property
    def every(self) -> float:
        """How often the daemon looks (``watch``)."""
        return self._settings.check_every_seconds

    def cause(self, reading: Reading) -> str | None:
        """What is wrong in ``reading`` by the thresholds, in plain words; None: nothing."""
        s = self._settings
        if s.min_free_disk_mb and reading.free_disk_mb < s.min_free_disk_mb:
            return (
                f"free disk space for fruitctl's data is {reading.free_disk_mb:.0f} MB, under "
                f"{s.min_free_disk_mb} MB"
            )
        if s.min_available_memory_mb and reading.available_memory_mb < s.min_available_memory_mb:
            return (
                f"available memory is {reading.available_memory_mb:.0f} MB, under "
                f"{s.min_available_memory_mb} MB"
            )
        if s.max_memory_percent < 100 and reading.memory_percent > s.max_memory_percent:
            return f"memory in use is {reading.memory_percent:.0f}%, over {s.max_memory_percent:g}%"
        return None

    def noted(self, error: BaseException) -> None:
        """A call's error: a store that answered "disk full" degrades the gateway at once."""
        if disk_full(error):
            assert isinstance(error, FruitctlError)
            with self._lock:
                self._fault = "a database answered that the disk is full"
            self.check(force=True)

    def check(self, *, force: bool = False) -> None:
        """Look (at most once per ``check_every_seconds`` unless ``force``), and change the mode
        if a cause appeared or has been clear long enough."""
        with self._lock:
            at = self._clock()
            recent = (
                self._looked is not None and at - self._looked < self._settings.check_every_seconds
            )
            if recent and not force:
                return
            self._looked = at
            if self._first is None:
                self._first = at
            found = self._fault or self.cause(self._read())
            self._fault = None
            if found is not None:
                self._last_cause = at
            self._apply(found, at)

    def _apply(self, found: str | None, at: float) -> None:
        held = self._modes.automatic()
        mode = self._modes.get()
        if found is not None:
            if held is None and mode not in ("DEGRADED", "LOCKDOWN"):
                self._modes.set_automatic("DEGRADED", found, mode)
                self._tell("mode_degraded", cause=found, previous=mode)
            return
        if held is None or mode != "DEGRADED":
            return  # nothing of ours, or a person's choice since: left alone
        # Clear since the last cause seen, or - one this process never saw (set before it
        # started) - since it first looked.
        quiet_since = self._last_cause if self._last_cause is not None else self._first
        if quiet_since is not None and at - quiet_since < self._settings.recover_after_seconds:
            return
        back = held["previous"]
        self._modes.set_automatic(back, f"cleared ({held['cause']})", None)
        self._tell("mode_restored", cause=held["cause"], mode=back)

    def _tell(self, event: str, **fields: Any) -> None:
        if self._told is not None:
            self._told(event, fields)


def watch(health: Health, every: float, stop: threading.Event) -> threading.Thread:
    """The daemon's watcher: ``health.check`` every ``every`` seconds until ``stop``."""

    def run() -> None:
        while not stop.wait(every):
            health.check()

    thread = threading.Thread(target=run, name="fruitctl-health", daemon=True)
    thread.start()
    return thread
