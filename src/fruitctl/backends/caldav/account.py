"""The CalDAV account a mirror reads and writes: where, as whom, and the bounds of one request."""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_RESPONSE_BYTES = 64 * 1_048_576
"""The default cap on one answer: a whole listing of a calendar of ~30,000 events fits (and a
sync reads a larger one in pieces), while what the parser builds from it stays well under a
gigabyte."""


@dataclass(frozen=True)
class Account:
    url: str
    username: str
    password: str = field(repr=False)
    timeout: float = 10.0
    """How long one request may take in all (each read included)."""
    max_bytes: int = MAX_RESPONSE_BYTES
    """The largest answer read."""
