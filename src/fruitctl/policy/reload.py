"""The rules in force while a process runs: governance.yaml read again when it changes.

A long-running daemon must enforce what the file says now, not what it said at start, and a
person must never have to guess which. So each decision first takes the file's stamp (one
``stat``: inode, size, modification time); when it differs from the one last read, the file is
loaded again - wholly, checked like at start - and only a file that loads replaces the rules,
in one assignment (a decision sees the old rules or the new, never a mix). A file that does not
load keeps the rules in force, and says so: ``problem`` holds its ``file:line`` message for
``system.info``, ``doctor`` and the log, until the file is fixed. A file removed means the
defaults, as at start.

No thread watches: a process that decides nothing has nothing to keep in step, and the next
decision is exactly when the rules must be right.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from fruitctl.config_files import ConfigError, Stamp, stamp
from fruitctl.domain.dates import format_epoch
from fruitctl.policy.governance import Governance, ToolRules


class Events(Protocol):
    """Where a reload is told (``telemetry.EventLog``)."""

    def info(self, event: str, **fields: Any) -> None: ...

    def warning(self, event: str, **fields: Any) -> None: ...


class LiveGovernance:
    """``Governance`` as ``path`` says it now (``of`` answers from the rules in force)."""

    def __init__(self, path: Path, load: Callable[[], Governance]) -> None:
        self.path = path
        self._load = load
        self.events: Events | None = None
        """Where reloads are told (the process's event log), once it is open."""
        self.on_change: Callable[[Governance], None] = lambda _: None
        """Called with the new rules once they are in force (the registry reshapes its tools)."""
        self._lock = threading.Lock()
        self._stamp = stamp(path)
        self.current = load()  # a broken file at start stops the start, with file:line
        self.loaded_at = time.time()
        self.problem: str | None = None
        """Why the file as it is now is not in force (``file:line: …``), or None."""

    def of(self, tool_name: str) -> ToolRules:
        return self.rules().of(tool_name)

    def rules(self) -> Governance:
        """The rules in force, after reading the file again if it changed."""
        if stamp(self.path) != self._stamp:
            with self._lock:  # one reader parses; the others then find the stamp taken
                now = stamp(self.path)
                if now != self._stamp:
                    self._reload(now)
        return self.current

    def _reload(self, now: Stamp) -> None:
        self._stamp = now
        try:
            fresh = self._load()
        except ConfigError as exc:
            self.problem = str(exc)
            if self.events is not None:
                self.events.warning(
                    "governance_not_reloaded",
                    error=self.problem,
                    kept=f"the rules loaded at {format_epoch(self.loaded_at)}",
                )
            return
        self.current, self.loaded_at, self.problem = fresh, time.time(), None
        self.on_change(fresh)
        if self.events is not None:
            self.events.info("governance_reloaded", file=str(self.path), exists=now is not None)

    def state(self) -> dict[str, Any]:
        """What ``system.info`` says of the rules: their file, since when they are in force,
        and why the file as it is now is not (``error``), if it is not."""
        self.rules()
        return {
            "file": str(self.path),
            "fromFile": self.current.source is not None,
            "loadedAt": format_epoch(self.loaded_at),
            "error": self.problem,
        }


def describe(found: dict[str, Any]) -> str | None:
    """One sentence for a person when the file is not in force (``state``), else None."""
    if not found.get("error"):
        return None
    if not found.get("loadedAt"):  # read by a process that runs no rules (no daemon)
        return (
            f"governance.yaml does not load ({found['error']}): until it is fixed, no tool "
            "runs and a daemon does not start."
        )
    kept = "" if found.get("fromFile") else " (the defaults: there was no file then)"
    return (
        f"The daemon keeps the rules it loaded at {found.get('loadedAt')}{kept}: governance.yaml "
        f"does not load now ({found['error']}). Fix the file; it is read again at the next call."
    )
