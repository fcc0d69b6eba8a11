"""Who calls: an agent or a person, by the identity a door bound it to, with the name it gives
itself shown under it."""

from __future__ import annotations

import getpass
import re
from dataclasses import dataclass, field
from typing import Literal

DISPLAY_SEPARATOR = "/"
"""Between an actor's identity and the display name a caller gave itself: ``agent:uid:1000/claude``.
No identity contains it (socket names and token names exclude it), so what precedes the first one
is always the identity."""
DISPLAY_MAX = 64  # a name, not a message: enough for "claude-code.vscode-extension"
_DISPLAY_UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]+")


@dataclass(frozen=True)
class Actor:
    """Who calls. Only a human may approve; a human's own writes need no approval.

    ``name`` is the identity the door bound the caller to (the kernel's uid on the agents' socket,
    the token on HTTP): rate limits, what proposals an agent sees and the audit key on it.
    ``display`` is what the caller calls itself; it is shown under the identity and never compared
    (two actors that differ only in it are the same actor)."""

    kind: Literal["agent", "human"]
    name: str
    display: str | None = field(default=None, compare=False)

    @property
    def label(self) -> str:
        """The identity, as every key and comparison uses it: ``agent:uid:1000``."""
        return f"{self.kind}:{self.name}"

    @property
    def shown(self) -> str:
        """The identity with the display name under it, as stored on a proposal and shown to the
        person: ``agent:uid:1000/claude``."""
        return f"{self.label}{DISPLAY_SEPARATOR}{self.display}" if self.display else self.label

    def called(self, display: str | None) -> Actor:
        """The same actor under another display name (sanitised: ``display_name``)."""
        return Actor(self.kind, self.name, display_name(display))

    @classmethod
    def parse(cls, shown: str) -> Actor:
        """The actor a stored ``shown`` string names (an unknown kind is an agent: never a
        person by accident)."""
        identity, _, display = shown.partition(DISPLAY_SEPARATOR)
        kind, _, name = identity.partition(":")
        return cls("human" if kind == "human" else "agent", name, display or None)


def identity_of(shown: str) -> str:
    """The identity part of a stored actor (``agent:uid:1000/claude`` -> ``agent:uid:1000``)."""
    return shown.partition(DISPLAY_SEPARATOR)[0]


def display_name(given: str | None) -> str | None:
    """A caller's name for itself made safe to show: letters, digits and ``._@+-`` only (anything
    else - a separator, a colon, a control or bidi character - becomes ``-``), at most
    ``DISPLAY_MAX`` characters; None when nothing is left."""
    if not given:
        return None
    safe = _DISPLAY_UNSAFE.sub("-", given[: DISPLAY_MAX * 4]).strip("-")[:DISPLAY_MAX]
    return safe or None


CLI_ACTOR = Actor("human", f"cli:{getpass.getuser()}")
"""The person at the keyboard, as the CLI calls on this machine's gateway."""
