"""Where an event write reaches: every calendar it touches must be allowed for an agent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fruitctl.capabilities.context import Context
from fruitctl.domain.errors import CalendarNotAllowed, NotFound
from fruitctl.policy.governance import ToolRules
from fruitctl.tools.model import TargetRule


def calendars_check(args: Any, rules: ToolRules, ctx: Context) -> None:
    """Every calendar an event write touches (where the event is, where it goes) must be
    allowed - by ``allowlist.calendars`` (``fruitctl config``) when set, else governance.yaml."""
    chosen = ctx.allowlists.get("allowlist.calendars")
    names = chosen if chosen is not None else rules.allowed_calendars
    if names is None:
        return
    allowed = {name.casefold() for name in names}
    for name in sorted(set(_touched_calendars(args, ctx))):
        if name.casefold() not in allowed:
            raise CalendarNotAllowed(
                f"Writes to calendar '{name}' are not permitted.", calendar=name
            )


def _touched_calendars(args: Any, ctx: Context) -> Iterator[str]:
    calendars = ctx.calendar.list_calendars()
    if getattr(args, "id", None) is not None:  # an update or delete: where the event is now
        yield from _current_calendar(args.id, ctx)
    elif getattr(args, "calendar", None) is None:  # a create into the default calendar
        yield next((c["name"] for c in calendars if c["isDefault"]), calendars[0]["name"])
    wanted = getattr(args, "calendar", None)
    if wanted is not None:  # a create into, or a move to, a named calendar
        by_id = {c["id"]: c["name"] for c in calendars}
        yield by_id.get(wanted, wanted)


def _current_calendar(event_id: str, ctx: Context) -> Iterator[str]:
    try:
        yield ctx.calendar.get_event({"id": event_id})["calendarName"]
    except NotFound:
        return  # the service reports an unknown id itself


def calendars_reached(args: Any, ctx: Context) -> Iterator[str]:
    """The calendars an event write reaches, for a standing grant's scope."""
    return (f"calendar:{name}" for name in _touched_calendars(args, ctx))


CALENDARS = TargetRule(calendars_check, "agents", calendars_reached)
