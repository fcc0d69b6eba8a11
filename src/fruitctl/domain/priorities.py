"""A reminder's priority by name: Apple's 0-9 as a person says it. Light on purpose: the CLI's
listing prints it without loading the reminder models (``domain.reminders`` re-exports it)."""

from __future__ import annotations

from typing import Literal

PriorityName = Literal["none", "low", "medium", "high"]


def priority_name(value: int) -> PriorityName:
    """The name a person sees; Apple spreads high over 1-4 and low over 6-9."""
    if value == 0:
        return "none"
    if value < 5:
        return "high"
    if value == 5:
        return "medium"
    return "low"
