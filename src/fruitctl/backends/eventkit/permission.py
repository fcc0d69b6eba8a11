"""Access to Reminders and Calendars (macOS privacy, "TCC"), as seed 000 asks for it.

- **Status**: EventKit's authorization, mapped to ``authorized | denied | not_determined |
  restricted`` (write-only calendar access cannot read: ``denied``).
- **Refusal**: a read or write without access raises ``PermissionDenied`` carrying
  ``service`` and ``instructions`` (``advice.py``): steps that work for the app macOS holds
  responsible for this process (``hosts.py``), never an empty answer.
- **Asking**: the system prompt is shown once per process, and only where it can be answered:
  the host can ask (a terminal known to, or ``fruitctl.app``) and someone is there - an
  interactive command, or the gateway running as ``fruitctl.app``, whose first request is what
  makes macOS ask about it. Anywhere else asking would wait on a prompt nobody sees (or that
  macOS never shows), so the answer is the instructions instead.
"""

from __future__ import annotations

from collections.abc import Callable

from fruitctl.backends.eventkit.advice import PANES, instructions
from fruitctl.backends.eventkit.errors import translated
from fruitctl.backends.eventkit.hosts import Responsible, detect
from fruitctl.backends.eventkit.values import (
    DENIED,
    FULL_ACCESS,
    NOT_DETERMINED,
    RESTRICTED,
    WRITE_ONLY,
    Entity,
    EventKitPort,
)
from fruitctl.domain.errors import PermissionDenied
from fruitctl.ports import PermissionStatus

__all__ = ["PROMPT_SECONDS", "STATUSES", "Access", "Responsible", "instructions"]

STATUSES: dict[int, PermissionStatus] = {
    NOT_DETERMINED: "not_determined",
    RESTRICTED: "restricted",
    DENIED: "denied",
    FULL_ACCESS: "authorized",
    WRITE_ONLY: "denied",
}
SERVICES: dict[Entity, str] = {"reminder": "reminders", "event": "calendar"}  # wire names
# How long a request waits for the person to answer the prompt: long enough to read it and
# find the window; a prompt left unanswered leaves the status not determined.
PROMPT_SECONDS = 120.0


class Access:
    """The permission of one process over Reminders and Calendars."""

    def __init__(
        self,
        port: EventKitPort,
        *,
        may_prompt: bool = False,
        who: Callable[[], Responsible] = detect,
    ) -> None:
        self._port = port
        self._may_prompt = may_prompt
        """Someone is at this process's terminal to see a prompt."""
        self._who = who
        self._found: Responsible | None = None
        self._asked: set[Entity] = set()

    def status(self, entity: Entity) -> PermissionStatus:
        return STATUSES.get(self._authorization(entity), "denied")

    def require(self, entity: Entity) -> None:
        """Return when this process may read and write ``entity``; else ask once (when
        someone can answer) or raise ``PermissionDenied`` with the instructions."""
        raw = self._authorization(entity)
        if raw == FULL_ACCESS:
            return
        if raw == NOT_DETERMINED and self._ask(entity):
            return
        raise self.refusal(entity, self._authorization(entity))

    def request(self, entity: Entity) -> PermissionStatus:
        """Show the system prompt now if the person has not answered it and can (``fruitctl
        doctor``); the status afterwards (still not determined where nobody could be asked)."""
        if self._authorization(entity) == NOT_DETERMINED:
            self._ask(entity)
        return self.status(entity)

    def responsible(self) -> Responsible:
        """The app macOS asks about (found once: a process keeps its responsible app)."""
        if self._found is None:
            self._found = self._who()
        return self._found

    def may_ask(self) -> bool:
        """Whether a prompt would be seen and answered: the host can ask, and a person is at
        the terminal or the host is fruitctl's own app (the gateway's first request asks)."""
        who = self.responsible()
        return who.can_ask and (self._may_prompt or who.kind == "holder")

    def _ask(self, entity: Entity) -> bool:
        """Ask once per process, where it can be answered; whether access was granted."""
        if entity in self._asked or not self.may_ask():
            return False
        self._asked.add(entity)
        with translated(f"ask for {PANES[entity]} access"):
            return self._port.request_access(entity, PROMPT_SECONDS)

    def _authorization(self, entity: Entity) -> int:
        with translated(f"read the {PANES[entity]} access"):
            return self._port.authorization(entity)

    def refusal(self, entity: Entity, raw: int) -> PermissionDenied:
        status = STATUSES.get(raw, "denied")
        return PermissionDenied(
            f"{PANES[entity]} access not granted ({status.replace('_', ' ')}).",
            service=SERVICES[entity],
            status=status,
            instructions=instructions(entity, raw, self.responsible()),
        )
