"""``/things``: Things 3 to-dos, projects (and their headings), areas and tags, the same
pattern as ``/calendar``.

Writes answer the to-do once Things shows it (``status: confirmed``), or ``status: sent`` when
it did not show in time; an agent's write is a proposal (202).
"""

# No `from __future__ import annotations`: FastAPI must see the local Annotated aliases.
from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from starlette.responses import Response

from fruitctl.transports.http import schemas
from fruitctl.transports.http.door import TOOL_KEY, Door, json_body
from fruitctl.transports.http.errors import HttpProblem
from fruitctl.transports.http.tokens import Claims

View = Literal["inbox", "today", "upcoming", "anytime", "someday", "logbook"]


def _answer(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    body = {"schema": schema or {"type": "object"}}
    return {"description": description, "content": {"application/json": body}}


def router(door: Door, user: Callable[..., Any]) -> APIRouter:
    api = APIRouter(prefix="/things", tags=["things"])
    Caller = Annotated[Claims, Depends(user)]
    # 501: no Things database here (or no open_command, for writes); 503: it cannot be read.
    read_errors = schemas.errors(403, 404, 422, 501, 503)
    write_errors = schemas.errors(400, 403, 404, 409, 422, 501, 503)
    written = _answer("status confirmed with the to-do, or status sent (not confirmed)")

    @api.get(
        "/todos",
        summary="To-dos as the Things app shows them",
        responses={200: _answer("todos, count, total"), **read_errors},
        openapi_extra={TOOL_KEY: "query_todos"},
    )
    async def query_todos(
        request: Request,
        claims: Caller,
        view: View | None = None,
        project: Annotated[str | None, Query(description="A project name or id")] = None,
        area: Annotated[str | None, Query(description="An area name or id")] = None,
        tag: Annotated[str | None, Query(description="A tag name")] = None,
        search: str | None = door.query("query_todos", "search"),
        limit: int = door.query("query_todos", "limit"),
    ) -> Response:
        wanted = {"view": view, "project": project, "area": area, "tag": tag, "search": search}
        args: dict[str, Any] = {key: value for key, value in wanted.items() if value is not None}
        args["limit"] = limit
        return await door.call("query_todos", args, claims, request)

    @api.get(
        "/todos/{todo_id}",
        summary="One to-do",
        responses={200: _answer("The to-do, every field"), **read_errors},
        openapi_extra={TOOL_KEY: "get_todo"},
    )
    async def get_todo(todo_id: str, request: Request, claims: Caller) -> Response:
        return await door.call("get_todo", {"id": todo_id}, claims, request)

    for path, tool, summary in (
        ("/projects", "list_projects", "Projects"),
        ("/areas", "list_areas", "Areas"),
        ("/tags", "list_tags", "Tags"),
    ):
        api.add_api_route(
            path,
            _lister(door, tool, Caller),
            methods=["GET"],
            summary=summary,
            responses={200: _answer(summary, {"type": "array"}), **schemas.errors(501, 503)},
            openapi_extra={TOOL_KEY: tool},
        )

    @api.get(
        "/projects/{project}/headings",
        summary="A project's headings",
        responses={200: _answer("Headings", {"type": "array"}), **read_errors},
        openapi_extra={TOOL_KEY: "list_headings"},
    )
    async def list_headings(project: str, request: Request, claims: Caller) -> Response:
        return await door.call("list_headings", {"project": project}, claims, request)

    @api.post(
        "/todos",
        summary="Add a to-do",
        status_code=201,
        responses={201: written, **schemas.accepted(), **write_errors},
        openapi_extra=door.body_schema("create_todo"),
    )
    async def create_todo(request: Request, claims: Caller) -> Response:
        args = await json_body(request)
        return await door.call("create_todo", args, claims, request, status=201)

    @api.patch(
        "/todos/{todo_id}",
        summary="Change a to-do",
        responses={200: written, **schemas.accepted(), **write_errors},
        openapi_extra=door.body_schema("update_todo", drop="id"),
    )
    async def update_todo(todo_id: str, request: Request, claims: Caller) -> Response:
        return await door.call("update_todo", await _with_id(request, todo_id), claims, request)

    @api.post(
        "/todos/{todo_id}/complete",
        summary="Complete, cancel or reopen a to-do",
        responses={200: written, **schemas.accepted(), **write_errors},
        openapi_extra=door.body_schema("complete_todo", drop="id"),
    )
    async def complete_todo(todo_id: str, request: Request, claims: Caller) -> Response:
        args = await _with_id(request, todo_id, empty_ok=True)
        return await door.call("complete_todo", args, claims, request)

    return api


def _lister(door: Door, tool: str, caller: Any) -> Callable[..., Any]:
    async def listing(request: Request, claims: caller) -> Response:
        return await door.call(tool, {}, claims, request)

    return listing


async def _with_id(request: Request, todo_id: str, *, empty_ok: bool = False) -> dict[str, Any]:
    body = await json_body(request) if (await request.body()) or not empty_ok else {}
    if "id" in body:
        raise HttpProblem("invalid_params", "Unknown parameter 'id': the path names it.")
    return {**body, "id": todo_id}
