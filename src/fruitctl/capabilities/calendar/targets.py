"""Where an event write reaches: every calendar it touches must be allowed for an agent.

A calendar is named as the service names it (``service.find_calendar``: an id, a name, or
``Account/Name``), and an allowlist entry as ``domain.accounts.allowed`` reads it: a name two
accounts share allows neither until it says which."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from fruitctl.capabilities.context import Context
from fruitctl.domain import accounts
from fruitctl.domain.calendar import Calendar
from fruitctl.domain.errors import CalendarNotAllowed, NotFound
from fruitctl.policy.governance import ToolRules
from fruitctl.tools.model import TargetRule

ALLOWLIST = "allowlist.calendars"
GOVERNED = "allowed_calendars (governance.yaml)"


def calendars_check(args: Any, rules: ToolRules, ctx: Context) -> None:
    """Every calendar an event write touches (where the event is, where it goes) must be
    allowed - by ``allowlist.calendars`` (``fruitctl config``) when set, else governance.yaml."""
    chosen = ctx.allowlists.get(ALLOWLIST)
    names = chosen if chosen is not None else rules.allowed_calendars
    if names is None:
        return
    where = ALLOWLIST if chosen is not None else GOVERNED
    calendars = ctx.calendar.backend.calendars()
    touched = _touched_calendars(args, ctx, calendars)
    accounts.refuse_unallowed(names, touched, calendars, where, _refused)


def _refused(name: str) -> CalendarNotAllowed:
    return CalendarNotAllowed(f"Writes to calendar '{name}' are not permitted.", calendar=name)


def _touched_calendars(
    args: Any, ctx: Context, calendars: Sequence[Calendar]
) -> Iterator[Calendar | str]:
    from fruitctl.capabilities.calendar.service import find_calendar  # with the first write

    if getattr(args, "id", None) is not None:  # an update or delete: where the event is now
        yield from _current_calendar(args.id, ctx, calendars)
    elif getattr(args, "calendar", None) is None and calendars:  # a create into the default
        yield find_calendar(list(calendars), None)
    wanted = getattr(args, "calendar", None)
    if wanted is not None:  # a create into, or a move to, a named calendar
        try:
            yield find_calendar(list(calendars), wanted)  # Ambiguous: nothing is guessed
        except NotFound:
            yield wanted


def _current_calendar(
    event_id: str, ctx: Context, calendars: Sequence[Calendar]
) -> Iterator[Calendar | str]:
    try:
        calendar_id = ctx.calendar.get_event({"id": event_id})["calendarId"]
    except NotFound:
        return  # the service reports an unknown id itself
    yield next((c for c in calendars if c.id == calendar_id), calendar_id)


def calendars_reached(args: Any, ctx: Context) -> Iterator[str]:
    """The calendars an event write reaches, for a standing grant's scope."""
    calendars = ctx.calendar.backend.calendars()
    return (
        f"calendar:{accounts.label(x, calendars)}" for x in _touched_calendars(args, ctx, calendars)
    )


CALENDARS = TargetRule(calendars_check, "agents", calendars_reached)
