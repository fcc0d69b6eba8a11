"""``/calendar``: calendars and events, the same pattern as ``/reminders``.

Event ids may name one occurrence of a series (``<seriesId>@<occurrence>``); ``occurrence`` and
``scope`` choose between one occurrence and the whole series, as the tools define them.
"""

# No `from __future__ import annotations`: FastAPI must see the local Annotated aliases.
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from starlette.responses import Response

from fruitctl.transports.http import schemas
from fruitctl.transports.http.door import TOOL_KEY, Door, json_body
from fruitctl.transports.http.errors import HttpProblem
from fruitctl.transports.http.tokens import Claims

OBJECT = {"content": {"application/json": {"schema": {"type": "object"}}}}
Scope = Literal["occurrence", "series"]


def _answer(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    body = {"schema": schema or {"type": "object"}}
    return {"description": description, "content": {"application/json": body}}


def router(door: Door, user: Callable[..., Any]) -> APIRouter:
    api = APIRouter(prefix="/calendar", tags=["calendar"])
    Caller = Annotated[Claims, Depends(user)]
    read_errors = schemas.errors(403, 404, 409, 422)
    write_errors = schemas.errors(400, 403, 404, 409, 422)
    event = _answer("The event, every field")

    @api.get(
        "/calendars",
        summary="Calendars",
        responses={
            200: _answer("id, name, isDefault, readOnly, color, account", {"type": "array"}),
            **schemas.errors(),
        },
        openapi_extra={TOOL_KEY: "list_calendars"},
    )
    async def list_calendars(request: Request, claims: Caller) -> Response:
        return await door.call("list_calendars", {}, claims, request)

    @api.get(
        "/events",
        summary="Events in a range (series expanded)",
        responses={200: _answer("window, events, count"), **read_errors},
        openapi_extra={TOOL_KEY: "query_events"},
    )
    async def query_events(
        request: Request,
        claims: Caller,
        start: Annotated[
            str | None, Query(alias="from", description="ISO 8601; default now")
        ] = None,
        to: Annotated[str | None, Query(description="ISO 8601; default 7 days on")] = None,
        calendar: Annotated[str | None, Query(description="A calendar name or id")] = None,
        limit: int = door.query("query_events", "limit"),
    ) -> Response:
        wanted = {"from": start, "to": to, "calendar": calendar, "limit": limit}
        args = {key: value for key, value in wanted.items() if value is not None}
        return await door.call("query_events", args, claims, request)

    @api.get(
        "/upcoming",
        summary="The next days of events in every calendar",
        responses={200: _answer("window, events, count"), **read_errors},
        openapi_extra={TOOL_KEY: "calendar_upcoming"},
    )
    async def upcoming(
        request: Request,
        claims: Caller,
        days: int = door.query("calendar_upcoming", "days"),
        limit: int = door.query("calendar_upcoming", "limit"),
        timezone: Annotated[str | None, Query(description="An IANA zone")] = None,
    ) -> Response:
        args: dict[str, Any] = {"days": days, "limit": limit}
        if timezone is not None:
            args["timezone"] = timezone
        return await door.call("calendar_upcoming", args, claims, request)

    _free_time(api, door, user)

    @api.get(
        "/events/{event_id}",
        summary="One event or occurrence",
        responses={200: event, **read_errors},
        openapi_extra={TOOL_KEY: "get_event"},
    )
    async def get_event(event_id: str, request: Request, claims: Caller) -> Response:
        return await door.call("get_event", {"id": event_id}, claims, request)

    @api.post(
        "/events",
        summary="Create an event",
        status_code=201,
        responses={201: event, **schemas.accepted(), **write_errors},
        openapi_extra=door.body_schema("create_event"),
    )
    async def create_event(request: Request, claims: Caller) -> Response:
        args = await json_body(request)
        return await door.call("create_event", args, claims, request, status=201)

    @api.patch(
        "/events/{event_id}",
        summary="Change an event, an occurrence or a series",
        responses={200: event, **schemas.accepted(), **write_errors},
        openapi_extra=door.body_schema("update_event", drop="id"),
    )
    async def update_event(event_id: str, request: Request, claims: Caller) -> Response:
        changes = await json_body(request)
        if "id" in changes:
            raise HttpProblem("invalid_params", "Unknown parameter 'id': the path names it.")
        return await door.call("update_event", {**changes, "id": event_id}, claims, request)

    @api.delete(
        "/events/{event_id}",
        summary="Delete an event, an occurrence or a series",
        responses={200: _answer("deleted, scope"), **schemas.accepted(), **write_errors},
        openapi_extra={TOOL_KEY: "delete_event"},
    )
    async def delete_event(
        event_id: str,
        request: Request,
        claims: Caller,
        occurrence: Annotated[str | None, Query(description="With a series id")] = None,
        scope: Scope | None = None,
    ) -> Response:
        wanted = {"id": event_id, "occurrence": occurrence, "scope": scope}
        args = {key: value for key, value in wanted.items() if value is not None}
        return await door.call("delete_event", args, claims, request)

    return api


def _free_time(api: APIRouter, door: Door, user: Callable[..., Any]) -> None:
    """``/calendar/free`` and ``/calendar/conflicts``: the two reads about busy time."""
    Caller = Annotated[Claims, Depends(user)]
    errors = schemas.errors(403, 404, 422)

    @api.get(
        "/free",
        summary="Free time in a range, inside working hours",
        responses={
            200: _answer("window, slots [{start, end, minutes}], count, more"),
            **errors,
        },
        openapi_extra={TOOL_KEY: "find_free_time"},
    )
    async def free_time(
        request: Request,
        claims: Caller,
        start: str | None = door.query("find_free_time", "from", alias="from"),
        to: str | None = door.query("find_free_time", "to"),
        calendar: Sequence[str] | None = door.query(
            "find_free_time", "calendars", alias="calendar"
        ),
        hours: str | None = door.query("find_free_time", "hours"),
        weekday: Sequence[str] | None = door.query("find_free_time", "weekdays", alias="weekday"),
        minutes: int = door.query("find_free_time", "minutes"),
        all_day: bool = door.query("find_free_time", "includeAllDay", alias="includeAllDay"),
        limit: int = door.query("find_free_time", "limit"),
    ) -> Response:
        given = {"from": start, "to": to, "hours": hours}
        args: dict[str, Any] = {key: value for key, value in given.items() if value is not None}
        for key, values in (("calendars", calendar), ("weekdays", weekday)):
            if values is not None:
                args[key] = list(values)
        args.update(minutes=minutes, includeAllDay=all_day, limit=limit)
        return await door.call("find_free_time", args, claims, request)

    @api.get(
        "/conflicts",
        summary="The busy events a proposed time overlaps",
        responses={200: _answer("window, conflicts [events], count"), **errors},
        openapi_extra={TOOL_KEY: "check_conflicts"},
    )
    async def conflicts(
        request: Request,
        claims: Caller,
        start: str = door.query("check_conflicts", "start"),
        end: str = door.query("check_conflicts", "end"),
        calendar: Sequence[str] | None = door.query(
            "check_conflicts", "calendars", alias="calendar"
        ),
        all_day: bool = door.query("check_conflicts", "includeAllDay", alias="includeAllDay"),
    ) -> Response:
        args: dict[str, Any] = {"start": start, "end": end, "includeAllDay": all_day}
        if calendar is not None:
            args["calendars"] = list(calendar)
        return await door.call("check_conflicts", args, claims, request)
