"""The alert options of the reminder and event commands: ``--alert 15`` (minutes before the
due, an event's start), ``--alert-at 2026-03-02T08:45``, each repeatable, and ``--clear-alerts``
on an update; made from the one alarm input model (``tools.alarms``)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from fruitctl.cli.fields import option
from fruitctl.tools.alarms import AlarmInput

REPEAT = "Repeat for more."


def minutes_option() -> Any:
    return option(AlarmInput, "minutesBefore", "--alert", also=REPEAT)


def moment_option() -> Any:
    return option(AlarmInput, "at", "--alert-at", also=REPEAT)


ClearAlerts = Annotated[bool, typer.Option("--clear-alerts", help="Remove every alert.")]


def alarms_given(
    minutes: list[int] | None, moments: list[str] | None, clear: bool = False
) -> list[dict[str, Any]] | None:
    """The ``alarms`` argument the options make: None when none was given (the field is left
    out), ``[]`` to clear them."""
    if clear:
        return []
    given = [{"minutesBefore": m} for m in minutes or ()] + [{"at": at} for at in moments or ()]
    return given or None
