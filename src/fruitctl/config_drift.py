"""config.toml while a process runs: what it says now that the process does not run with.

The configuration is loaded once, at start, and never changes under a running process (see
``fruitctl.config``): it chose the backends, opened the stores, bound the socket and the port,
set every timeout and limit - an object built from it does not take a new value, and applying
half of a file would leave a daemon that matches neither its start nor the file. So a changed
config.toml is never applied live; it is *said*: ``system.info``, ``info``, ``doctor`` and
``tools list`` name the keys that changed (names only: a value may be a secret) and how to
restart, and a file that no longer loads is shown with its ``file:line`` message.

Checked like governance.yaml: a ``stat`` per look, a load only when the file's stamp changed -
and always at the first look, which compares the file with what the process started with.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from fruitctl.config import Config, ConfigError
from fruitctl.config_files import Stamp, stamp

RESTART = (
    "restart the daemon to apply it: `fruitctl server stop`, then `fruitctl server start` (or "
    "stop and start `fruitctl serve` wherever it runs: a service, `make run`)"
)
"""How a person makes a running daemon read its configuration again."""

_UNSEEN = (-1, -1, -1)  # no file has this stamp: the first look always compares


class ConfigWatch:
    """Whether ``running`` (the configuration this process started with) is what ``load``
    reads now."""

    def __init__(self, running: Config, load: Callable[[], Config]) -> None:
        self.running = running
        self._load = load
        self._lock = threading.Lock()
        self._stamp: Stamp = _UNSEEN
        self._found: dict[str, Any] = {}
        self.events: Any = None
        """Where a file found to differ is told (the process's event log), once per change."""

    def state(self) -> dict[str, Any]:
        """``{file, current, changed: [key...], error, restart?}``: ``current`` is false when
        the file now says something this process does not run with, or cannot be read."""
        path = self.running.paths.config_file
        if stamp(path) != self._stamp:
            with self._lock:
                now = stamp(path)
                if now != self._stamp:
                    self._found = self._compare()
                    self._stamp = now
                    self._tell(self._found)
        return {"file": str(path), **self._found}

    def _tell(self, found: dict[str, Any]) -> None:
        if self.events is None or found["current"]:
            return
        self.events.warning(
            "config_not_applied",
            file=str(self.running.paths.config_file),
            changed=found["changed"],
            error=found["error"],
        )

    def _compare(self) -> dict[str, Any]:
        try:
            fresh = self._load()
        except ConfigError as exc:
            return {"current": False, "changed": [], "error": str(exc), "restart": RESTART}
        changed = changed_keys(
            self.running.settings.model_dump(), fresh.settings.model_dump(), prefix=""
        )
        if self.running.paths != fresh.paths:
            changed.append("(the files' locations)")
        found: dict[str, Any] = {"current": not changed, "changed": changed, "error": None}
        return found | ({"restart": RESTART} if changed else {})


def changed_keys(before: Mapping[str, Any], after: Mapping[str, Any], *, prefix: str) -> list[str]:
    """The dotted keys whose values differ (``http.port``), tables compared key by key."""
    changed: list[str] = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            changed += changed_keys(old, new, prefix=f"{prefix}{key}.")
        elif old != new:
            changed.append(prefix + key)
    return changed


def describe(found: Mapping[str, Any]) -> str | None:
    """One sentence for a person when the running configuration is not the file's, else None."""
    if found.get("current", True):
        return None
    if found.get("olderProgram"):
        return f"The daemon runs an older fruitctl than this command (installed since): {RESTART}."
    if found.get("error"):
        return (
            f"The daemon runs the configuration it started with: config.toml does not load now "
            f"({found['error']}); fix it, then {RESTART}."
        )
    keys = ", ".join(found.get("changed") or [])
    return f"The daemon runs an older configuration: config.toml changed ({keys}); {RESTART}."
