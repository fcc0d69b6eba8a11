"""Recent read results of one store, kept while the store is unchanged.

An agent asks the same thing again and again (the default query, the list names); answering a
repeat from memory makes it cost a dictionary lookup instead of SQL and row building.

Validity comes from SQLite itself: ``PRAGMA data_version`` on one held connection changes whenever
any other connection - in this process or another - commits to the file. Writes never go through
that connection, so every write moves it. A value computed after the version was read is at least
as new as that version, so an entry can be one commit early but never stale: the next lookup sees
the new version and drops everything.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from sqlalchemy import Engine

T = TypeVar("T")
DEFAULT_ENTRIES = 64


class ReadCache:
    def __init__(self, engine: Engine, entries: int = DEFAULT_ENTRIES) -> None:
        self._conn: Any = engine.raw_connection()
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()
        self._limit = entries
        self._version: int | None = None

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The cached value of ``key``, or ``compute()`` kept for next time. Values must be
        immutable, or copied by the caller before it changes them."""
        with self._lock:
            version = self._current_version()
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]  # type: ignore[no-any-return]
        value = compute()
        with self._lock:
            if self._version == version:
                self._entries[key] = value
                if len(self._entries) > self._limit:
                    self._entries.popitem(last=False)
        return value

    def close(self) -> None:
        with self._lock:
            self._entries.clear()
            self._conn.close()

    def _current_version(self) -> int:
        version: int = self._conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._version:
            self._entries.clear()
            self._version = version
        return version
