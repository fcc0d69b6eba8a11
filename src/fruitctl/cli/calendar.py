"""``fruitctl calendars`` and ``fruitctl calendar …``: events for a person, through the gateway."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from fruitctl.capabilities.calendar.inputs import (
    CheckConflicts,
    CreateEvent,
    FindFreeTime,
    QueryEvents,
    Target,
    Upcoming,
    UpdateEvent,
)
from fruitctl.cli import calendar_render as render
from fruitctl.cli.alarms import ClearAlerts, alarms_given, minutes_option, moment_option
from fruitctl.cli.app import JsonOption, client
from fruitctl.cli.fields import option
from fruitctl.cli.lists import created
from fruitctl.cli.output import answer_write, is_pending, out, reporting, run
from fruitctl.domain.errors import InvalidParams

calendar_app = typer.Typer(
    help="Events: list, upcoming, free time, conflicts, get, create, update and delete.",
    no_args_is_help=True,
)

EventId = Annotated[
    str, typer.Argument(help="Event id, or an occurrence id <id>@<occurrence>.", show_default=False)
]
Series = Annotated[
    bool,
    typer.Option("--series", help="Apply to the whole series, even when an occurrence is named."),
]


calendars_app = typer.Typer(
    help="Calendars, the default first; create one.", invoke_without_command=True
)


@calendars_app.callback()
def calendars_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Show the calendars, the default first."""
    if ctx.invoked_subcommand is None:
        run(as_json, lambda: client(as_json).call("list_calendars", {}), render.show_calendars)


@calendars_app.command("create")
def create_calendar_command(
    name: Annotated[
        str, typer.Argument(metavar="NAME", help="The new one's name.", show_default=False)
    ],
    as_json: JsonOption = False,
) -> None:
    """Create a calendar (on a CalDAV account: a new event calendar on the server)."""
    created(as_json, "create_calendar", name, "calendar")


@calendar_app.command("list")
def list_command(
    start: str | None = option(QueryEvents, "start", "--from"),
    to: str | None = option(QueryEvents, "to"),
    calendar: str | None = option(QueryEvents, "calendar"),
    limit: int = option(QueryEvents, "limit"),
    as_json: JsonOption = False,
) -> None:
    """Events in a range, recurring ones expanded, soonest first."""
    args: dict[str, Any] = {"limit": limit}
    args.update(_given({"from": start, "to": to, "calendar": calendar}))
    run(as_json, lambda: client(as_json).call("query_events", args), render.show_window)


@calendar_app.command("upcoming")
def upcoming_command(
    days: int = option(Upcoming, "days"),
    limit: int = option(Upcoming, "limit"),
    timezone: str | None = option(Upcoming, "timezone"),
    as_json: JsonOption = False,
) -> None:
    """The next days of events across all calendars, soonest first."""
    args: dict[str, Any] = {"days": days, "limit": limit, **_given({"timezone": timezone})}
    run(as_json, lambda: client(as_json).call("calendar_upcoming", args), render.show_upcoming)


@calendar_app.command("free")
def free_command(
    start: str | None = option(FindFreeTime, "start", "--from"),
    to: str | None = option(FindFreeTime, "to"),
    minutes: int = option(FindFreeTime, "minutes", "--min"),
    hours: str | None = option(FindFreeTime, "hours"),
    weekday: list[str] | None = option(
        FindFreeTime, "weekdays", "--weekday", also="Repeat for more."
    ),
    calendar: list[str] | None = option(
        FindFreeTime, "calendars", "--calendar", also="Repeat for more."
    ),
    all_day: bool = option(FindFreeTime, "includeAllDay", "--all-day"),
    limit: int = option(FindFreeTime, "limit"),
    as_json: JsonOption = False,
) -> None:
    """Free slots in a range: the time no busy event takes, inside working hours."""
    args: dict[str, Any] = {"minutes": minutes, "includeAllDay": all_day, "limit": limit}
    given = {"from": start, "to": to, "hours": hours, "weekdays": weekday, "calendars": calendar}
    args.update(_given(given))
    run(as_json, lambda: client(as_json).call("find_free_time", args), render.show_free)


@calendar_app.command("conflicts")
def conflicts_command(
    start: str = option(CheckConflicts, "start"),
    end: str = option(CheckConflicts, "end"),
    calendar: list[str] | None = option(
        CheckConflicts, "calendars", "--calendar", also="Repeat for more."
    ),
    all_day: bool = option(CheckConflicts, "includeAllDay", "--all-day"),
    as_json: JsonOption = False,
) -> None:
    """The busy events a proposed time overlaps."""
    args: dict[str, Any] = {"start": start, "end": end, "includeAllDay": all_day}
    args.update(_given({"calendars": calendar}))
    run(as_json, lambda: client(as_json).call("check_conflicts", args), render.show_conflicts)


@calendar_app.command("get")
def get_command(event_id: EventId, as_json: JsonOption = False) -> None:
    """Show one event (or one occurrence) with all its fields."""
    run(as_json, lambda: client(as_json).call("get_event", {"id": event_id}), render.show_event)


@calendar_app.command("create")
def create_command(
    title: str = option(CreateEvent, "title"),
    start: str = option(CreateEvent, "startAt", "--start"),
    end: str | None = option(CreateEvent, "endAt", "--end"),
    all_day: bool = option(CreateEvent, "allDay", "--all-day"),
    calendar: str | None = option(CreateEvent, "calendar"),
    location: str | None = option(CreateEvent, "location"),
    notes: str | None = option(CreateEvent, "notes"),
    rrule: str | None = option(CreateEvent, "recurrence", "--rrule"),
    timezone: str | None = option(CreateEvent, "timezone"),
    alert: list[int] | None = minutes_option(),
    alert_at: list[str] | None = moment_option(),
    as_json: JsonOption = False,
) -> None:
    """Create an event (in the default calendar unless --calendar is given)."""
    args: dict[str, Any] = {"title": title, "startAt": start, "allDay": all_day}
    args.update(
        _given(
            {
                "endAt": end,
                "calendar": calendar,
                "location": location,
                "notes": notes,
                "recurrence": rrule,
                "timezone": timezone,
                "alarms": alarms_given(alert, alert_at),
            }
        )
    )
    _write(as_json, "create_event", args, "Created")


@calendar_app.command("update")
def update_command(
    event_id: EventId,
    title: str | None = option(UpdateEvent, "title"),
    start: str | None = option(UpdateEvent, "startAt", "--start"),
    end: str | None = option(UpdateEvent, "endAt", "--end"),
    calendar: str | None = option(UpdateEvent, "calendar"),
    location: str | None = option(UpdateEvent, "location"),
    notes: str | None = option(UpdateEvent, "notes"),
    rrule: str | None = option(UpdateEvent, "recurrence", "--rrule"),
    timezone: str | None = option(UpdateEvent, "timezone"),
    clear_location: Annotated[
        bool, typer.Option("--clear-location", help="Remove the location.")
    ] = False,
    clear_notes: Annotated[bool, typer.Option("--clear-notes", help="Remove the notes.")] = False,
    no_repeat: Annotated[
        bool, typer.Option("--no-repeat", help="Make a series a single event.")
    ] = False,
    alert: list[int] | None = minutes_option(),
    alert_at: list[str] | None = moment_option(),
    clear_alerts: ClearAlerts = False,
    occurrence: str | None = option(Target, "occurrence"),
    series: Series = False,
    as_json: JsonOption = False,
) -> None:
    """Change an event. An occurrence (id or --occurrence) changes alone unless --series."""
    change = _given(
        {
            "title": title,
            "startAt": start,
            "endAt": end,
            "calendar": calendar,
            "location": location,
            "notes": notes,
            "recurrence": rrule,
            "timezone": timezone,
            "alarms": alarms_given(alert, alert_at, clear_alerts),
        }
    )
    for flag, key in (
        (clear_location, "location"),
        (clear_notes, "notes"),
        (no_repeat, "recurrence"),
    ):
        if flag:
            change[key] = None
    if not change:
        with reporting(as_json):
            raise InvalidParams.no_option_given()
    args = {"id": event_id, **change, **_target(occurrence, series)}
    _write(as_json, "update_event", args, "Updated")


@calendar_app.command("delete")
def delete_command(
    event_id: EventId,
    occurrence: str | None = option(Target, "occurrence"),
    series: Series = False,
    as_json: JsonOption = False,
) -> None:
    """Delete an event, a series, or one occurrence (an occurrence id, or --occurrence)."""
    args = {"id": event_id, **_target(occurrence, series)}
    with reporting(as_json):
        result = deleted(client(as_json).call("delete_event", args))
    answer_write(as_json, result, _show_deleted)


def written(result: dict[str, Any]) -> dict[str, Any]:
    """A create's or update's answer in one shape whatever became of it: ``status`` (``done``,
    or ``pending`` with the proposal's fields: ``proposalId``, ``approve``, ``url``...) and the
    event under ``event`` (null while pending)."""
    return {**result, "event": None} if is_pending(result) else {"status": "done", "event": result}


def deleted(result: dict[str, Any]) -> dict[str, Any]:
    """A delete's answer in the same way: ``status``, ``deleted`` and ``scope`` (null while
    pending)."""
    if is_pending(result):
        return {"deleted": None, "scope": None, **result}
    return {"status": "done", **result}


def _show_deleted(result: dict[str, Any]) -> None:
    what = "occurrence" if result["scope"] == "occurrence" else "event"
    out.print(f"Deleted {what} {result['deleted']}.")


def _target(occurrence: str | None, series: bool) -> dict[str, Any]:
    target: dict[str, Any] = _given({"occurrence": occurrence})
    if series:
        target["scope"] = "series"
    return target


def _write(as_json: bool, tool: str, args: dict[str, Any], verb: str) -> None:
    with reporting(as_json):
        result = written(client(as_json).call(tool, args))
    answer_write(as_json, result, lambda done: _show_written(verb, done["event"]))


def _show_written(verb: str, event: dict[str, Any]) -> None:
    out.print(f"{verb}:")
    render.show_event(event)


def _given(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}
