"""The CalDAV account a mirror reads and writes: where, as whom, and the bounds of one request."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

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

    @property
    def title(self) -> str:
        """What its lists and calendars say they are in: the server's host name
        (``caldav.fastmail.com``) - what a person signed up with and recognises. Not the user
        name: one address may have an account on several servers; not the principal's display
        name: most servers answer the user name there, and reading it costs a request."""
        return urlsplit(self.url).hostname or self.url
