"""``/tools``: every registry tool, listed and callable by name; and what the gateway is
(``/info``, ``/mode``) and how it has been used (``/stats``, admin).

These are what a ``fruitctl`` CLI on another machine calls (``FRUITCTL_URL``): a call answers
with the tool's own output, exactly as the socket and the in-process CLI do, so every command
prints the same there as here. A call is one ``Gateway.ainvoke`` as the token's actor: an agent's
write answers 202 with its pending proposal, like the resource routes.
"""

# No `from __future__ import annotations`: FastAPI must see the local Annotated aliases.
import time
from collections.abc import Callable
from typing import Annotated, Any

import psutil
from fastapi import APIRouter, Depends, Path, Query, Request
from starlette.responses import Response

from fruitctl.capabilities import toolsets
from fruitctl.domain.errors import MethodNotFound
from fruitctl.tools.model import Category
from fruitctl.transports.http import schemas
from fruitctl.transports.http.door import Door, Json, json_body
from fruitctl.transports.http.tokens import Claims
from fruitctl.transports.service_info import service_info

ToolName = Annotated[str, Path(description="A tool's name, e.g. query_reminders", max_length=64)]


def router(door: Door, user: Callable[..., Any], admin: Callable[..., Any]) -> APIRouter:
    api = APIRouter(tags=["tools"])
    Caller = Annotated[Claims, Depends(user)]
    Person = Annotated[Claims, Depends(admin)]

    @api.get(
        "/tools",
        summary="Every tool, with what an agent's call gets in each mode",
        responses=schemas.errors(),
    )
    async def list_tools(
        claims: Caller,
        category: Annotated[Category | None, Query(description="Only this category")] = None,
    ) -> Response:
        listed = door.app.gateway.describe_tools(category)
        return Json([tool for tool in listed if toolsets.offers(claims.tools, tool["name"])])

    @api.get(
        "/tools/{name}",
        summary="One tool: description, input schema, rules and verdicts",
        responses=schemas.errors(404),
    )
    async def show_tool(name: ToolName, claims: Caller) -> Response:
        if not toolsets.offers(claims.tools, name):
            raise MethodNotFound.not_offered(name, claims.tools or ())
        return Json(door.app.gateway.describe_tool(name))

    @api.post(
        "/tools/{name}",
        summary="Call a tool with a JSON object of arguments (the tool's input schema)",
        responses={**schemas.accepted(), **schemas.errors(403, 404, 409)},
    )
    async def call_tool(name: ToolName, request: Request, claims: Caller) -> Response:
        return await door.call(name, await json_body(request), claims, request)

    @api.get(
        "/info",
        summary="Version, uptime, socket, mode, backends and each service's permission",
        tags=["system"],
        responses=schemas.errors(),
    )
    async def info(request: Request, claims: Caller) -> Response:
        status = await door.run(door.app.status)
        public = door.app.config.settings.http.public_url or str(request.base_url)
        uptime = int((time.time() - psutil.Process().create_time()) * 1000)
        socket = door.app.config.paths.socket_file
        found = service_info(status, socket, public.rstrip("/"), uptime_ms=uptime, daemon=True)
        return Json(found)

    @api.get("/mode", summary="The mode, since when and who set it", tags=["system"])
    async def mode(claims: Caller) -> Response:
        return Json(await door.run(door.app.modes.describe))

    @api.get(
        "/stats",
        summary="Per tool: calls by outcome, error rate and latency (admin)",
        tags=["system"],
        responses=schemas.errors(403),
    )
    async def stats(
        claims: Person,
        since: Annotated[float, Query(gt=0, description="Seconds back from now")] = 86400,
    ) -> Response:
        return Json(await door.run(door.app.stats, time.time() - since))

    @api.get(
        "/audit/verify",
        summary="Recompute every hash of the audit chain (admin)",
        tags=["audit"],
        responses=schemas.errors(403),
    )
    async def verify(claims: Person) -> Response:
        return Json(await door.run(door.app.audit.verify))

    return api
