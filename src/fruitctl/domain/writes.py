"""Write tokens: how a write done on behalf of an approved proposal is made exactly-once.

While a proposal executes, ``writing(proposal_id)`` is active; each backend write asks
``next_token()`` for ``<proposal id>:<n>`` (n counts the writes of this execution, which runs
the same stored arguments in the same order every time) and records it in the same transaction
as the write. Executing the proposal again after a crash replays the recorded writes - returning
what they returned - and performs only the ones that never happened.

A backend calls ``entering()`` where a write passes from preparing (parsing, expanding,
building text) to changing its store: a write whose caller gave up at its deadline before then
(``Gate.close``) stops there with ``Timeout`` and changes nothing; one already past it runs to
completion, and its proposal records how it ended.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from fruitctl.domain.errors import Timeout

_current: ContextVar[tuple[str, itertools.count[int]] | None] = ContextVar(
    "fruitctl_write_token", default=None
)


class Gate:
    """One execution's line between preparing a write and making it: either the write passes
    first (and then runs to completion) or the caller closes it first (and the write stops at
    it, having changed nothing) - never both. ``deadline`` (``time.monotonic()``) is when the
    caller answers: a write that waits on something after its change (Things, watching its
    database for the change to show) stops waiting in time to answer itself (``remaining``)."""

    def __init__(self, deadline: float | None = None) -> None:
        self.deadline = deadline
        self._lock = threading.Lock()
        self._passed = False
        self._closed = False

    def enter(self) -> None:
        with self._lock:
            if self._closed:
                raise Timeout("The write was cancelled at its deadline; nothing was changed.")
            self._passed = True

    def close(self) -> bool:
        """Stop the write at the gate; False when it has passed it already."""
        with self._lock:
            self._closed = not self._passed
            return self._closed


_gate: ContextVar[Gate | None] = ContextVar("fruitctl_write_gate", default=None)


def entering() -> None:
    """A write is about to change its store (take its write lock, send its request): past a
    closed gate this raises ``Timeout`` instead."""
    gate = _gate.get()
    if gate is not None:
        gate.enter()


def remaining() -> float | None:
    """Seconds until the running write's caller answers, or None without a deadline."""
    gate = _gate.get()
    if gate is None or gate.deadline is None:
        return None
    return max(0.0, gate.deadline - time.monotonic())


@contextmanager
def gated(gate: Gate) -> Iterator[None]:
    """Every write in here passes ``gate`` first (at ``entering``)."""
    reset = _gate.set(gate)
    try:
        yield
    finally:
        _gate.reset(reset)


@contextmanager
def writing(base: str) -> Iterator[None]:
    reset = _current.set((base, itertools.count(1)))
    try:
        yield
    finally:
        _current.reset(reset)


def next_token() -> str | None:
    """The token of the next write, or None outside a proposal's execution."""
    current = _current.get()
    if current is None:
        return None
    base, counter = current
    return f"{base}:{next(counter)}"
