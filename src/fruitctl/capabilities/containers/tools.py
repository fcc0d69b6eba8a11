"""Making a reminder list or a calendar: writes like any other, so an agent's is a proposal a
person approves (the default governance), and a person's own runs at once.

Neither has an undo: no tool removes a list or a calendar (one made by mistake is deleted in
the store's own app), and a proposal says so by having none."""

from __future__ import annotations

from typing import Any

from fruitctl.capabilities.containers import service as containers
from fruitctl.capabilities.context import Context
from fruitctl.domain.calendar import Calendar
from fruitctl.domain.reminders import ReminderList
from fruitctl.tools import model
from fruitctl.tools.inputs import parse
from fruitctl.tools.model import Args, Change, Snapshot


def _kept_name(args: Args) -> str:
    return str(args.get("name", "")).strip()


def _no_snapshot(args: Args, ctx: Context) -> Snapshot:
    return {}  # nothing exists yet to change meanwhile; a name taken since fails on approval


def _none_again(before: Snapshot, ctx: Context) -> Snapshot:
    return {}


def _no_inverse(args: Args, before: Snapshot, result: Any) -> dict[str, Any] | None:
    return None


def _change(what: str, precheck: Any) -> Change:
    def summary(args: Args, ctx: Context) -> str:
        return f"Create the {what} '{_kept_name(args)}'"

    def diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
        return [
            {"target": f"new {what}", "field": "name", "before": None, "after": _kept_name(args)}
        ]

    def resolve(args: Args, ctx: Context) -> tuple[Args, list[dict[str, Any]]]:
        precheck(args, ctx)  # a bad or taken name is refused when proposed
        return args, []

    return Change(summary, _no_snapshot, _none_again, _no_inverse, diff, resolve)


def _check_list(args: Args, ctx: Context) -> None:
    containers.list_name(ctx.reminders.backend, args)


def _check_calendar(args: Args, ctx: Context) -> None:
    containers.calendar_name(ctx.calendar.backend, args)


@model.tool(
    returns=ReminderList,
    category="pim_write",
    risk="low",
    title="Create a reminder list",
    parse=parse,
    change=_change("reminder list", _check_list),
    service="reminders",
)
def create_reminder_list(args: containers.NewList, ctx: Context) -> Any:
    """Create a reminder list and answer it ({"id", "name", "isDefault", "count", "account"}).

    name: 1-200 characters, not the name of another list (in any case). On a CalDAV account
    it is a new calendar for to-dos on the server. No tool deletes a list.

    Example: {"name": "Groceries"}
    """
    return containers.create_list(ctx.reminders.backend, args)


@model.tool(
    returns=Calendar,
    category="pim_write",
    risk="low",
    title="Create a calendar",
    parse=parse,
    change=_change("calendar", _check_calendar),
    service="calendar",
)
def create_calendar(args: containers.NewCalendar, ctx: Context) -> Any:
    """Create a calendar for events and answer it ({"id", "name", "isDefault", "readOnly",
    "color", "account"}).

    name: 1-255 characters, not the name of another calendar (in any case). On a CalDAV
    account it is a new calendar for events on the server; a store that cannot make calendars
    answers unsupported. No tool deletes a calendar.

    Example: {"name": "Travel"}
    """
    return containers.create_calendar(ctx.calendar.backend, args)


TOOLS = [create_reminder_list, create_calendar]
