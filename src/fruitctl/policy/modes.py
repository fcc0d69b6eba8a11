"""The gateway's operating mode (seed 001): NORMAL, ALERT, DEGRADED, LOCKDOWN, RECOVERY.

Persisted in state.db, so every process (the daemon, a CLI) sees the same mode; read on every
call through one held connection (a few microseconds), so a change applies at once.
"""

from __future__ import annotations

import json
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
    "INSERT INTO settings (key, value, updated, updated_by) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated = excluded.updated, "
    "updated_by = excluded.updated_by"
)
_AUTOMATIC = "mode_automatic"
"""The settings row of a mode fruitctl set by itself: JSON ``{"cause", "previous"}``; gone as
soon as anyone else sets the mode."""
AUTOMATIC_ACTOR = "fruitctl (automatic)"


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
        """A person's (or a process's) choice of mode; it ends any mode fruitctl set by itself,
        so fruitctl never takes it back (``automatic``)."""
        return self._set(parse_mode(mode), actor, None)

    def set_automatic(self, mode: Mode, cause: str, previous: Mode | None) -> Mode:
        """fruitctl's own change of mode (``policy.health``), for ``cause``: ``previous`` is the
        mode it came from, to return to (None: it is returning, and the record ends)."""
        note = None if previous is None else {"cause": cause, "previous": previous}
        return self._set(mode, f"{AUTOMATIC_ACTOR}: {cause}", note)

    def automatic(self) -> dict[str, Any] | None:
        """The mode fruitctl set by itself and still holds: ``{"cause", "previous"}``, or None
        when nobody set one or a person has set the mode since."""
        with self._lock:
            row = self._conn.execute(
                "SELECT value FROM settings WHERE key = ?", (_AUTOMATIC,)
            ).fetchone()
        if row is None or not row[0]:
            return None
        note: dict[str, Any] = json.loads(row[0])
        return note

    def _set(self, chosen: Mode, actor: str, note: dict[str, Any] | None) -> Mode:
        at = format_datetime(now())
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(_WRITE, ("mode", chosen, at, actor))
                if note is None:
                    self._conn.execute("DELETE FROM settings WHERE key = ?", (_AUTOMATIC,))
                else:
                    self._conn.execute(_WRITE, (_AUTOMATIC, json.dumps(note), at, actor))
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
