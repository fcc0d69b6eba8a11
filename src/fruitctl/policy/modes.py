"""The gateway's operating mode (seed 001): NORMAL, ALERT, DEGRADED, LOCKDOWN, RECOVERY.

Persisted in state.db, so every process (the daemon, a CLI) sees the same mode; read on every
call through one held connection (a few microseconds), so a change applies at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, cast

from sqlalchemy import Engine

from fruitctl.domain.dates import format_datetime, now
from fruitctl.domain.errors import InvalidParams
from fruitctl.tools.model import MODES, Mode

DEFAULT: Mode = "NORMAL"
_READ = "SELECT value FROM settings WHERE key = 'mode'"
_WRITE = (
    "INSERT INTO settings (key, value, updated, updated_by) VALUES ('mode', ?, ?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated = excluded.updated, "
    "updated_by = excluded.updated_by"
)


def parse_mode(text: str) -> Mode:
    mode = text.strip().upper()
    if mode not in MODES:
        raise InvalidParams(f"Unknown mode '{text}'. Modes: {', '.join(MODES)}.")
    return mode


class ModeStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._conn: Any = engine.raw_connection()
        self._lock = threading.Lock()
        self._seen: tuple[int, Mode] | None = None

    def get(self) -> Mode:
        # data_version changes when another connection commits to the file: until then the
        # mode read last is still the mode, and checking costs less than reading it.
        with self._lock:
            version = self._conn.execute("PRAGMA data_version").fetchone()[0]
            if self._seen is None or self._seen[0] != version:
                row = self._conn.execute(_READ).fetchone()
                mode = cast(Mode, row[0]) if row and row[0] in MODES else DEFAULT
                self._seen = (version, mode)
            return self._seen[1]

    def describe(self) -> dict[str, Any]:
        with self._lock:
            row = self._conn.execute(
                "SELECT value, updated, updated_by FROM settings WHERE key = 'mode'"
            ).fetchone()
        if row is None:
            return {"mode": DEFAULT, "since": None, "setBy": None}
        return {"mode": row[0], "since": row[1], "setBy": row[2]}

    on_lockdown: Callable[[str], object] | None = None
    """Called with who set it after the mode is set to LOCKDOWN (by the composition root: every
    standing grant ends, so none outlives it)."""

    def set(self, mode: str, actor: str) -> Mode:
        chosen = parse_mode(mode)
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(_WRITE, (chosen, format_datetime(now()), actor))
                self._conn.execute("COMMIT")
                self._seen = None  # our own commit does not move data_version for us
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        if chosen == "LOCKDOWN" and self.on_lockdown is not None:
            self.on_lockdown(actor)
        return chosen

    def close(self) -> None:
        self._conn.close()
