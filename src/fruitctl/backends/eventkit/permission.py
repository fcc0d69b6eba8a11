"""Access to Reminders and Calendars (macOS privacy, "TCC"), as seed 000 asks for it.

- **Status**: EventKit's authorization, mapped to ``authorized | denied | not_determined |
  restricted`` (write-only calendar access cannot read: ``denied``).
- **Refusal**: a read or write without access raises ``PermissionDenied`` carrying
  ``service`` and ``instructions`` - which app to enable, and where - never an empty answer.
- **Who must be enabled**: macOS attributes access to the *responsible* app - the one that
  started this process (Terminal, iTerm, Claude Desktop …), or this Python itself when launchd
  started it as a LaunchAgent. It is found by walking up the parent processes to the first
  ``.app`` bundle.
- **Asking**: the system prompt is shown once, and only when someone can see it (``fruitctl
  doctor``, an interactive command): a daemon started by launchd would wait on a prompt nobody
  sees, so it never asks; it answers with the instructions instead.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

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

STATUSES: dict[int, PermissionStatus] = {
    NOT_DETERMINED: "not_determined",
    RESTRICTED: "restricted",
    DENIED: "denied",
    FULL_ACCESS: "authorized",
    WRITE_ONLY: "denied",
}
SERVICES: dict[Entity, tuple[str, str]] = {
    # entity: (the service name on the wire, the System Settings pane)
    "reminder": ("reminders", "Reminders"),
    "event": ("calendar", "Calendars"),
}
SETTINGS = "System Settings > Privacy & Security > "
PROMPT_SECONDS = 120.0


@dataclass(frozen=True)
class Responsible:
    """The app macOS asks about access for this process."""

    name: str
    path: str
    background: bool = False
    """Started by launchd (a LaunchAgent): no prompt can be shown for it."""


def responsible(chain: Sequence[str], executable: str = sys.executable) -> Responsible:
    """From the executables of this process and its parents (nearest first), the app that is
    responsible for it: the first inside an ``.app`` bundle, else this Python (by launchd)."""
    for path in chain:
        bundle, found, _ = path.partition(".app/")
        if found:
            app = bundle + ".app"
            return Responsible(os.path.basename(bundle), app)
    return Responsible(f"the Python at {executable}", executable, background=True)


def process_chain() -> list[str]:
    """The executables of this process and its ancestors, nearest first (unknown ones left
    out)."""
    import psutil  # here: only a refusal or `fruitctl doctor` needs it

    chain: list[str] = []
    process: psutil.Process | None = psutil.Process()
    while process is not None and process.pid > 1:
        try:
            chain.append(process.exe())
            process = process.parent()
        except psutil.Error:
            break
    return chain


def detect() -> Responsible:
    return responsible(process_chain())


def instructions(entity: Entity, status: int, who: Responsible) -> list[str]:
    """What the person does to give access, step by step, for this status."""
    _, pane = SERVICES[entity]
    if status == RESTRICTED:
        return [
            f"Access to {pane} is restricted on this Mac (a management profile or Screen Time).",
            "Ask whoever manages this Mac to allow it, then retry the command",
        ]
    steps = [f"Open {SETTINGS}{pane}", f"Enable access for {who.name} ({who.path})"]
    if status == WRITE_ONLY:
        steps[1] = f"Change {who.name}'s access from 'Add Only' to 'Full Access'"
    if status == NOT_DETERMINED or who.background:
        steps.append(
            "Or run `fruitctl doctor` once in Terminal: it asks macOS to show the permission "
            "prompt, which a background service cannot show"
        )
    steps.append("Retry the command")
    return steps


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
        self._who = who
        self._asked: set[Entity] = set()

    def status(self, entity: Entity) -> PermissionStatus:
        return STATUSES.get(self._port.authorization(entity), "denied")

    def require(self, entity: Entity) -> None:
        """Return when this process may read and write ``entity``; else ask once (when
        someone can answer) or raise ``PermissionDenied`` with the instructions."""
        raw = self._port.authorization(entity)
        if raw == FULL_ACCESS:
            return
        if raw == NOT_DETERMINED and self._may_prompt and entity not in self._asked:
            self._asked.add(entity)
            if self._port.request_access(entity, PROMPT_SECONDS):
                return
            raw = self._port.authorization(entity)
        raise self.refusal(entity, raw)

    def request(self, entity: Entity) -> PermissionStatus:
        """Show the system prompt now if the person has not answered it yet (``fruitctl
        doctor``); the status afterwards."""
        if self._port.authorization(entity) == NOT_DETERMINED:
            self._asked.add(entity)
            self._port.request_access(entity, PROMPT_SECONDS)
        return self.status(entity)

    def responsible(self) -> Responsible:
        return self._who()

    def refusal(self, entity: Entity, raw: int) -> PermissionDenied:
        service, pane = SERVICES[entity]
        status = STATUSES.get(raw, "denied")
        return PermissionDenied(
            f"{pane} access not granted ({status.replace('_', ' ')}).",
            service=service,
            status=status,
            instructions=instructions(entity, raw, self._who()),
        )
