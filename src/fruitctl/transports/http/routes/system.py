"""``/health`` (open, for probes) and ``/skills`` (what this gateway can do, from the registry).

Seed 003 aggregates ``/skills`` from adapter manifests; here the registry is the manifest: tools
are grouped by the capability that declares them (reminders, calendar, files, ...), each with
the HTTP routes that call it, and the reminders/calendar adapters report their backend and its
permission as their native dependency.
"""

# No `from __future__ import annotations`: FastAPI must see the local Annotated aliases.
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI
from starlette.responses import Response

from fruitctl import __version__
from fruitctl.capabilities import subject_of, toolsets
from fruitctl.tools.model import Tool
from fruitctl.transports.http import schemas
from fruitctl.transports.http.door import TOOL_KEY, Door, Json
from fruitctl.transports.http.tokens import Claims
from fruitctl.transports.service_info import SERVICE


def router(door: Door, user: Callable[..., Any]) -> APIRouter:
    routes = APIRouter(tags=["system"])
    Caller = Annotated[Claims, Depends(user)]

    @routes.get("/health", summary="Liveness (no token needed)", response_model=schemas.Health)
    async def health() -> Response:
        return Json({"status": "ok", "service": SERVICE, "version": __version__})

    @routes.get(
        "/skills",
        summary="Capabilities by adapter, with native-dependency status",
        responses={200: {"model": schemas.Skills}, **schemas.errors()},
    )
    async def skills(claims: Caller) -> Response:
        status = await door.run(door.app.status)
        offered = door.app.gateway.registry.offered()
        tools = [tool for tool in offered if toolsets.offers(claims.tools, tool.name)]
        return Json(skills_of(tools, status, routes_by_tool(door.serving.api)))

    return routes


def skills_of(
    tools: list[Tool], status: dict[str, Any], routes: dict[str, list[str]]
) -> dict[str, Any]:
    adapters: dict[str, dict[str, Any]] = {}
    for item in tools:
        name = subject_of(item) or "tools"
        adapter = adapters.setdefault(name, _adapter(name, status))
        definition = item.definition
        adapter["capabilities"].append(
            {
                "tool": definition.name,
                "title": definition.title,
                "description": definition.description,
                "category": definition.category,
                "risk": definition.risk_level,
                "routes": routes.get(definition.name, []),
                "inputSchema": definition.input_schema,
            }
        )
    return {
        "service": SERVICE,
        "version": __version__,
        "mode": status.get("mode", "NORMAL"),
        "adapters": list(adapters.values()),
    }


def _adapter(name: str, status: dict[str, Any]) -> dict[str, Any]:
    if name == "things":
        return _things_adapter(status.get("things") or {})
    backend = (status.get("backends") or {}).get(name)
    permission = (status.get("permissions") or {}).get(name)
    deps = []
    if backend is not None:
        state = str(permission or "not_determined")
        deps.append({"name": str(backend), "status": state, "available": state == "authorized"})
    return {
        "name": name,
        "version": __version__,
        "backend": backend,
        "nativeDeps": deps,
        "capabilities": [],
    }


def _things_adapter(things: dict[str, Any]) -> dict[str, Any]:
    """Things' native dependencies: its database (found and readable) and the program its URL
    scheme is handed to (writes)."""
    state = str(things.get("state", "not set up"))
    writes = str(things.get("writes", "unsupported here"))
    deps = [
        {"name": "things database", "status": state, "available": state == "ok"},
        {"name": "things URL scheme", "status": writes, "available": writes.startswith("through")},
    ]
    return {
        "name": "things",
        "version": __version__,
        "backend": "things",
        "nativeDeps": deps,
        "capabilities": [],
    }


def routes_by_tool(app: FastAPI) -> dict[str, list[str]]:
    """``METHOD /path`` of every operation, by the tool it calls (its ``x-fruitctl-tool``),
    read from the app's own OpenAPI document."""
    found: dict[str, list[str]] = {}
    for path, operations in app.openapi().get("paths", {}).items():
        for method, operation in operations.items():
            tool = operation.get(TOOL_KEY) if isinstance(operation, dict) else None
            if tool:
                found.setdefault(tool, []).append(f"{method.upper()} {path}")
    return found
