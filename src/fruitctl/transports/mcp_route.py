"""Where ``fruitctl mcp`` (stdio, or standalone ``--http``) runs its tools: the one decision.

- A daemon answers on the home's socket: **through it**. It holds the person's data (on a Mac,
  the one process macOS granted access to), and two processes must not both reach it.
- No daemon, not a Mac, or no Apple backend configured (local, CalDAV): **in this process**, as
  the CLI does.
- No daemon, a Mac, Apple data configured (EventKit for reminders or calendars, Things): in this
  process only when macOS already lets it in - EventKit's status read without a prompt is
  ``authorized``, Things' database is readable. Otherwise **refuse**: an MCP host's child
  (Claude Desktop, an editor's terminal) cannot show the person a prompt, and a grant it asked
  for would belong to the host, not to fruitctl. The refusal says how to start the holder.

Deny by default: a status that is missing or anything but ``authorized`` refuses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from fruitctl.domain.errors import PermissionDenied

APPLE_BACKENDS = frozenset({"eventkit", "things"})
"""Backends whose data macOS guards per process (TCC): they need the grant holder."""

MAC = "darwin"

HOLDER_STEPS = [
    "Install fruitctl's service once, in Terminal: `fruitctl service install` (macOS asks "
    'once, for "fruitctl")',
    "Keep the MCP client's command as `fruitctl mcp`: it then talks to that service, which "
    "holds the access",
    "Or, without installing: run `fruitctl server start` in Terminal and keep that session open",
    "Check with `fruitctl doctor`, then retry",
]
"""How to start the process that holds the access, for every refusal."""

Way = Literal["daemon", "in_process", "refuse"]


@dataclass(frozen=True)
class Route:
    way: Way
    reason: str
    refused: tuple[str, ...] = ()
    """The services this process may not reach (``refuse`` only)."""

    def refusal(self) -> PermissionDenied:
        """The error every call answers on the ``refuse`` route."""
        names = ", ".join(self.refused)
        return PermissionDenied(
            f"This MCP server has no access to {names} on this Mac, and it will not ask macOS "
            "from here: nobody would see the prompt. Start fruitctl's own service, which holds "
            "the access, and this server uses it.",
            service=self.refused[0],
            instructions=HOLDER_STEPS,
        )


def choose(
    platform: str,
    daemon: bool,
    backends: Mapping[str, str],
    permissions: Mapping[str, str],
) -> Route:
    """``backends``: service -> backend name (``reminders``: ``eventkit``; ``things`` only
    when set up); ``permissions``: service -> ``authorized | denied | not_determined |
    restricted``, read without prompting (only needed on a Mac)."""
    if daemon:
        return Route("daemon", "a daemon answers on the socket: it holds the data")
    if platform != MAC:
        return Route("in_process", "not a Mac: no per-process grant to hold")
    apple = [service for service, name in backends.items() if name in APPLE_BACKENDS]
    if not apple:
        return Route("in_process", "no Apple data configured")
    refused = tuple(s for s in apple if permissions.get(s) != "authorized")
    if refused:
        return Route("refuse", "macOS has not granted this process access", refused)
    return Route("in_process", "macOS already grants this process access")
