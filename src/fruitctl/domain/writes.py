"""Write tokens: how a write done on behalf of an approved proposal is made exactly-once.

While a proposal executes, ``writing(proposal_id)`` is active; each backend write asks
``next_token()`` for ``<proposal id>:<n>`` (n counts the writes of this execution, which runs
the same stored arguments in the same order every time) and records it in the same transaction
as the write. Executing the proposal again after a crash replays the recorded writes - returning
what they returned - and performs only the ones that never happened.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_current: ContextVar[tuple[str, itertools.count[int]] | None] = ContextVar(
    "fruitctl_write_token", default=None
)


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
