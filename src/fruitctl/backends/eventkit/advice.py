"""What a person does to give fruitctl access to Reminders or Calendars - only steps that work.

A host that can ask (a terminal known to, or ``fruitctl.app``) is named in System Settings once
it has asked, so "enable it there" is true. A host that cannot ask never appears there, so it
is never the advice: the route that works is the gateway installed as ``fruitctl.app``
(``fruitctl service install``, which macOS asks about once, as "fruitctl"), with the MCP client
pointed at ``fruitctl mcp``, which then reaches Apple's data through the gateway.
"""

from __future__ import annotations

from fruitctl.backends.eventkit.hosts import Responsible
from fruitctl.backends.eventkit.values import NOT_DETERMINED, RESTRICTED, WRITE_ONLY, Entity

PANES: dict[Entity, str] = {"reminder": "Reminders", "event": "Calendars"}
SETTINGS = "System Settings > Privacy & Security > "
INSTALL = (
    "In Terminal on this Mac, run `fruitctl service install`: it installs the gateway as the "
    "fruitctl app, and macOS asks once whether fruitctl may use your {pane} - allow it"
)
NO_INSTALL = (
    "Or, without installing: run `fruitctl server start` in Terminal (the gateway then uses "
    "Terminal's access, until you log out)"
)


def instructions(entity: Entity, status: int, who: Responsible) -> list[str]:
    """What the person does to give access, step by step, for this status and host."""
    pane = PANES[entity]
    if status == RESTRICTED:
        return [
            f"Access to {pane} is restricted on this Mac (a management profile or Screen Time).",
            "Ask whoever manages this Mac to allow it, then retry the command",
        ]
    if not who.can_ask:
        return _route(pane, who)
    if status == NOT_DETERMINED:
        return [_ask(pane, who), "Retry the command"]
    change = (
        f"Change {who.name}'s access from 'Add Only' to 'Full Access'"
        if status == WRITE_ONLY
        else f"Enable access for {who.name} ({who.path})"
    )
    return [f"Open {SETTINGS}{pane}", change, "Retry the command"]


def _ask(pane: str, who: Responsible) -> str:
    if who.kind == "holder":
        return (
            f"Allow fruitctl when macOS asks whether it may use your {pane} (the gateway asks "
            "on its first request; if the prompt was missed, run `fruitctl service uninstall` "
            "and `fruitctl service install` in Terminal so that it asks again)"
        )
    return (
        f"Run `fruitctl doctor` in {who.name}: macOS asks once whether {who.name} may use your "
        f"{pane} - allow it"
    )


def _route(pane: str, who: Responsible) -> list[str]:
    """Why this host gets no access, and the route that works instead."""
    install = INSTALL.format(pane=pane)
    if who.kind == "ssh":
        return [
            f"This is an SSH session: macOS cannot show anyone its {pane} prompt from here.",
            install,
            "Then run fruitctl over SSH as before: its commands go through the gateway",
        ]
    if who.kind == "service":
        return [
            f"This fruitctl runs in the background without an app ({who.path}), which macOS "
            f"cannot ask about your {pane} and lists nowhere in System Settings.",
            install,
            NO_INSTALL,
            "Retry the command",
        ]
    return [
        f"{who.name} cannot ask macOS for your {pane}: macOS refuses the programs it starts "
        f"without a prompt, and {who.name} never appears in System Settings to be enabled.",
        install,
        f"Then point {who.name}'s MCP server settings at `fruitctl mcp`: it reaches your "
        f"{pane} through the gateway",
        NO_INSTALL,
    ]
