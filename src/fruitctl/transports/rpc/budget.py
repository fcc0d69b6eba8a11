"""How many bytes of answers the socket holds at once; how large one answer and one batch may be.

A read's answer is bounded by its tool (a file read by ``max_bytes``), but a JSON-RPC batch may
hold a thousand of them, and a client may send many batches and never read what comes back: sixty
reads of a 5 MB file in one batch once made the daemon hold gigabytes. So every answer is counted,
in encoded bytes, from the moment it is encoded until the connection has written it out:

- one answer over ``one`` is replaced by an error saying so (``invalid_params``: ask for less);
- a batch whose answers together pass ``batch`` has the rest replaced by an error
  (``invalid_request``: send them on their own);
- while the daemon already holds ``in_flight`` bytes of answers - encoded, or waiting in a
  connection that does not read - a large answer is refused with ``rate_limited`` (retryable).

Small answers (errors, pings, most reads; up to ``SMALL_ANSWER_BYTES``) are counted but never
refused, so the socket keeps answering and a write's outcome is never replaced by an error.
"""

from __future__ import annotations

from dataclasses import dataclass

from fruitctl.domain.errors import FruitctlError, InvalidParams, InvalidRequest, RateLimited

MIB = 1024 * 1024
SMALL_ANSWER_BYTES = 64 * 1024
"""An answer this small always goes out: an error, a ping, a write's outcome, a page of items."""
MAX_ANSWER_BYTES = 32 * MIB
"""One answer: a file read at its largest (governance's ``max_file_size_mb``, 10 by default) with
JSON's escaping and room to spare."""
MAX_BATCH_ANSWER_BYTES = 64 * MIB
"""A batch's answers together: a couple of the largest reads; a batch is for many small calls."""
IN_FLIGHT_ANSWER_BYTES = 256 * MIB
"""Every answer held at once, over every connection: a few hundred MB of memory at worst, where a
LaunchAgent's Mac and a small container both have room."""


@dataclass(frozen=True)
class AnswerLimits:
    one: int = MAX_ANSWER_BYTES
    batch: int = MAX_BATCH_ANSWER_BYTES
    in_flight: int = IN_FLIGHT_ANSWER_BYTES


class AnswerBudget:
    """The bytes of answers held now (used on the event loop only: no lock)."""

    def __init__(self, limits: AnswerLimits) -> None:
        self.limits = limits
        self.held = 0

    def take(self, size: int) -> bool:
        """Count ``size`` bytes if they fit (a small answer always does)."""
        if size > SMALL_ANSWER_BYTES and self.held + size > self.limits.in_flight:
            return False
        self.held += size
        return True

    def force(self, size: int) -> None:
        """Count bytes already written to a connection: they are held until it drains."""
        self.held += size

    def give(self, size: int) -> None:
        self.held = max(0, self.held - size)

    def refusal(self, size: int, batch_total: int | None = None) -> FruitctlError | None:
        """Why an answer of ``size`` bytes cannot go out (``batch_total``: what its batch's
        answers already add up to), or None when it may - then it is counted."""
        small = size <= SMALL_ANSWER_BYTES
        if not small and size > self.limits.one:
            return InvalidParams(
                f"The answer is {size} bytes, over the limit of {self.limits.one} for one answer:"
                " ask for less (a smaller limit, a narrower range, a query that selects fields)."
            )
        if not small and batch_total is not None and batch_total + size > self.limits.batch:
            return InvalidRequest(
                f"This answer ({size} bytes) would take its batch past {self.limits.batch} bytes"
                " of answers: send this request on its own."
            )
        if not self.take(size):
            return RateLimited(
                f"The daemon is holding {self.held} bytes of answers not yet read; this one"
                f" ({size} bytes) must wait: retry in a moment.",
                retryAfterSeconds=1,
            )
        return None
