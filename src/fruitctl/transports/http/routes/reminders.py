"""``/reminders``: seed 003's reminder routes, each one call of a registry tool.

A write answers 201/200 with the reminder when the policy lets it run (an admin token is a
person), or 202 with the pending proposal when a person must approve it first (an agent's).
The batch tools' partial-failure shapes become a plain error for the one reminder a route names.
"""

# No `from __future__ import annotations`: FastAPI must see the local Annotated aliases.
from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from starlette.responses import Response

from fruitctl.domain.errors import NotFound
from fruitctl.transports.http import schemas
from fruitctl.transports.http.door import TOOL_KEY, Door, json_body
from fruitctl.transports.http.errors import HttpProblem
from fruitctl.transports.http.tokens import Claims


def router(door: Door, user: Callable[..., Any]) -> APIRouter:
    api = APIRouter(prefix="/reminders", tags=["reminders"])
    Caller = Annotated[Claims, Depends(user)]
    read_errors = schemas.errors(403, 404, 409, 422)
    write_errors = schemas.errors(400, 403, 404, 409, 422)

    @api.get(
        "",
        summary="Query reminders",
        responses={200: schemas.QUERY_RESULT, **read_errors},
        openapi_extra={TOOL_KEY: "query_reminders"},
    )
    async def query_reminders(
        request: Request,
        claims: Caller,
        list_name: Annotated[
            str | None,
            Query(alias="list", description="A list by name (any case); not with listId or all"),
        ] = None,
        list_id: Annotated[
            str | None, Query(alias="listId", description="A list by id; not with list or all")
        ] = None,
        all_lists: Annotated[
            bool, Query(alias="all", description="Every list (default: the default list)")
        ] = False,
        status: Literal["incomplete", "completed", "all"] = "incomplete",
        sort: Annotated[
            Literal["newest", "oldest", "priority", "dueDate"],
            Query(description="Ignored when query is given"),
        ] = "newest",
        query: Annotated[
            str | None, Query(description="A JMESPath expression run on the reminders")
        ] = None,
        limit: int = door.query("query_reminders", "limit"),
    ) -> Response:
        # One of list, listId, all=true (more is a 422, as the tool says).
        selector = _given(name=list_name, id=list_id, all=all_lists or None)
        args = _given(status=status, sortBy=sort, limit=limit, query=query, list=selector or None)
        return await door.call("query_reminders", args, claims, request)

    @api.get(
        "/lists",
        summary="Reminder lists",
        responses={200: {"model": list[schemas.ReminderList]}, **schemas.errors()},
        openapi_extra={TOOL_KEY: "get_lists"},
    )
    async def get_lists(request: Request, claims: Caller) -> Response:
        return await door.call("get_lists", {}, claims, request)

    @api.get(
        "/open",
        summary="Open reminders across every list (GTD review)",
        responses={200: {"description": "generatedAt, items, count"}, **read_errors},
        openapi_extra={TOOL_KEY: "open_reminders"},
    )
    async def open_reminders(
        request: Request,
        claims: Caller,
        limit: int = door.query("open_reminders", "limit"),
        include_no_due: bool = door.query(
            "open_reminders", "includeNoDueDate", alias="includeNoDueDate"
        ),
    ) -> Response:
        args = {"limit": limit, "includeNoDueDate": include_no_due}
        return await door.call("open_reminders", args, claims, request)

    @api.get(
        "/{reminder_id}",
        summary="One reminder",
        responses={200: {"model": schemas.Reminder}, **read_errors},
        openapi_extra={TOOL_KEY: "get_reminder"},
    )
    async def get_reminder(reminder_id: str, request: Request, claims: Caller) -> Response:
        return await door.call("get_reminder", {"id": reminder_id}, claims, request)

    @api.post(
        "",
        summary="Create a reminder",
        status_code=201,
        responses={201: {"model": schemas.Reminder}, **schemas.accepted(), **write_errors},
        openapi_extra=door.body_schema("create_reminders", item="reminders"),
    )
    async def create_reminder(request: Request, claims: Caller) -> Response:
        args = {"reminders": [await json_body(request)]}
        return await door.call(
            "create_reminders", args, claims, request, status=201, shape=_one_created
        )

    @api.patch(
        "/{reminder_id}",
        summary="Change a reminder (only the fields given)",
        responses={200: {"model": schemas.Reminder}, **schemas.accepted(), **write_errors},
        openapi_extra=door.body_schema("update_reminders", item="reminders", drop="id"),
    )
    async def update_reminder(reminder_id: str, request: Request, claims: Caller) -> Response:
        changes = await json_body(request)
        if "id" in changes:  # the path names the reminder; a second id would be ambiguous
            raise HttpProblem("invalid_params", "Unknown parameter 'id': the path names it.")
        args = {"reminders": [{**changes, "id": reminder_id}]}
        return await door.call("update_reminders", args, claims, request, shape=_one_updated)

    @api.post(
        "/{reminder_id}/complete",
        summary="Complete a reminder",
        responses={200: {"model": schemas.Reminder}, **schemas.accepted(), **write_errors},
        openapi_extra={TOOL_KEY: "update_reminders"},
    )
    async def complete_reminder(reminder_id: str, request: Request, claims: Caller) -> Response:
        args = {"reminders": [{"id": reminder_id, "completed": True}]}
        return await door.call("update_reminders", args, claims, request, shape=_one_updated)

    @api.delete(
        "/{reminder_id}",
        summary="Delete a reminder",
        responses={200: {"model": schemas.Deleted}, **schemas.accepted(), **write_errors},
        openapi_extra={TOOL_KEY: "delete_reminders"},
    )
    async def delete_reminder(reminder_id: str, request: Request, claims: Caller) -> Response:
        args = {"ids": [reminder_id]}
        return await door.call("delete_reminders", args, claims, request, shape=_one_deleted)

    return api


def _given(**values: Any) -> dict[str, Any]:
    """The arguments a caller gave (None means not given: the tool's default applies)."""
    return {key: value for key, value in values.items() if value is not None}


def _one_created(output: Any) -> Any:
    if isinstance(output, dict):  # {"created": [], "failed": [{"index", "error"}]}
        raise NotFound(output["failed"][0]["error"])
    return output[0]


def _one_updated(output: Any) -> Any:
    if isinstance(output, dict):  # {"updated": [], "failed": [{"id", "error"}]}
        raise NotFound(output["failed"][0]["error"])
    return output[0]


def _one_deleted(output: Any) -> Any:
    if output.get("failed"):
        raise NotFound(output["failed"][0]["error"])
    return {"deleted": output["deleted"]}
