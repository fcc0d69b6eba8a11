"""Picking up what other apps changed: without a run loop this process never hears EventKit's
change notification (``EKEventStoreChangedNotification``), and a store keeps handing out what it
loaded until it is reset. So list reads first have the store drop its cache and pull the
accounts (``EventKitPort.refresh``) - at most once per ``every`` seconds, so an agent's burst of
reads pays for it once, and a long-running daemon is never more than ``every`` seconds behind the
Reminders and Calendar apps. Reads by id and writes never wait for it: they are always fresh."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from fruitctl.backends.eventkit.errors import translated
from fruitctl.backends.eventkit.values import EventKitPort


class Refresher:
    def __init__(
        self, port: EventKitPort, every: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._port = port
        self._every = every
        self._clock = clock
        self._last: float | None = None
        self._lock = threading.Lock()

    def __call__(self) -> None:
        now = self._clock()
        with self._lock:
            if self._last is not None and now - self._last < self._every:
                return
            self._last = now
        with translated("refresh Apple's store"):
            self._port.refresh()
