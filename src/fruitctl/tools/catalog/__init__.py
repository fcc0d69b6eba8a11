"""The tool catalog: every capability fruitctl offers, declared as typed functions."""

from __future__ import annotations

from fruitctl.tools.model import Tool


def all_tools() -> list[Tool]:
    """Every tool of the catalog, in a stable order (reminders first)."""
    from fruitctl.tools.catalog import (
        approvals,
        calendar,
        containers,
        files,
        reminders,
        system,
        things,
        web,
    )

    return [
        *reminders.TOOLS,
        *calendar.TOOLS,
        *containers.TOOLS,
        *things.TOOLS,
        *approvals.TOOLS,
        *files.TOOLS,
        *system.TOOLS,
        *web.TOOLS,
    ]
