"""The HTTP front door (seed 003): a FastAPI app over ``Gateway.ainvoke``.

``create_app(app)`` builds it for a composition root's ``App``: the API routes (``/health``,
``/skills``, ``/reminders``, ``/calendar``, ``/things``, ``/proposals``, ``/audit``,
``/config``, and ``/tools``, ``/info``, ``/mode``, ``/stats`` for a CLI elsewhere), the
approval page under ``/ui``, the OpenAPI document at ``/openapi.json``, and one error handler
per kind of failure, all rendering seed 003's envelope through ``errors.error_response``.
It opens no socket: ``server.HttpServer`` serves it, tests call it through ``httpx``'s
``ASGITransport``. Interactive docs pages are off: they load scripts from elsewhere, which the
page's own CSP forbids.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.resources import files
from typing import TYPE_CHECKING, Any

import orjson
from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from fruitctl import __version__
from fruitctl.domain.errors import FruitctlError
from fruitctl.transports.http.auth import admin_only, authenticator
from fruitctl.transports.http.door import SERVING, Door, Serving
from fruitctl.transports.http.errors import HttpProblem, error_response, from_exception
from fruitctl.transports.http.guard import Guard
from fruitctl.transports.http.routes import (
    calendar,
    grants,
    proposals,
    reminders,
    system,
    things,
    tools,
)
from fruitctl.transports.http.tokens import TokenStore, serving_store
from fruitctl.transports.http.ui import pages
from fruitctl.transports.http.ui.session import Sessions

if TYPE_CHECKING:
    from fruitctl.bootstrap import App
    from fruitctl.tools.registry import ToolRegistry

DESCRIPTION = """Governed access to reminders and calendars for agents and scripts.

Every request but `/health` needs `Authorization: Bearer <token>` (make one with
`fruitctl auth token`). Reads answer at once. A write answers 201/200 when the policy lets it
run, or **202 with a pending proposal** that a person approves (`POST /proposals/{id}/approve`
with an admin token, the `/ui` page, or the CLI). Errors are
`{"error": {"code", "message", "retryable", "details"}}`."""


def create_app(
    app: App,
    *,
    tokens: TokenStore | None = None,
    allowed_hosts: Iterable[str] | None = None,
) -> FastAPI:
    """The API and the approval page for ``app``. ``tokens``: the store that admits (and counts)
    API tokens, the server's own, shared with its other doors; ``serving_store(app)`` if none.
    ``allowed_hosts`` (``"127.0.0.1:8765"``, ...) turns on the Host check; the server passes the
    names it is reachable by."""
    settings = app.config.settings.http
    tokens = tokens or serving_store(app)
    api = FastAPI(
        title="fruitctl",
        version=__version__,
        description=DESCRIPTION,
        docs_url=None,
        redoc_url=None,
    )
    api.router.routes.extend(_routes(app.gateway.registry))
    static = files("fruitctl.transports.http").joinpath("static")
    api.mount("/ui/static", StaticFiles(directory=str(static)), name="static")
    _handle_errors(api)
    api.add_middleware(
        Guard,
        max_body_bytes=settings.max_body_bytes,
        hosts=None if allowed_hosts is None else list(allowed_hosts),
    )
    api.add_middleware(_Serve, serving=Serving(app, tokens, Sessions(tokens), api))
    return api


class _Serve:
    """The outermost layer: what the routes serve this request with (``door.SERVING``)."""

    def __init__(self, inner: ASGIApp, *, serving: Serving) -> None:
        self._inner = inner
        self._serving = serving

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        reset = SERVING.set(self._serving)
        try:
            await self._inner(scope, receive, send)
        finally:
            SERVING.reset(reset)


# The routes, once per set of tool declarations they are built from (every app of a process,
# as a rule): FastAPI builds a model for each parameter of each route, some 70 ms in all.
_ROUTES: dict[bytes, list[BaseRoute]] = {}


def _routes(registry: ToolRegistry) -> list[BaseRoute]:
    declared = orjson.dumps(
        {tool.name: tool.definition.input_schema for tool in registry},
        option=orjson.OPT_SORT_KEYS,
    )
    if declared not in _ROUTES:
        door = Door(registry)
        user = authenticator()
        admin = admin_only(user)
        routers = [
            system.router(door, user),
            reminders.router(door, user),
            calendar.router(door, user) if registry.get("query_events") is not None else None,
            things.router(door, user) if registry.get("query_todos") is not None else None,
            proposals.router(door, user, admin),
            grants.router(door, admin),
            tools.router(door, user, admin),
            pages.router(door),
        ]
        built = APIRouter()
        for router in routers:
            if router is not None:
                built.include_router(router)
        _ROUTES[declared] = built.routes
    return _ROUTES[declared]


def _handle_errors(api: FastAPI) -> None:
    async def domain_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, FruitctlError | HttpProblem)
        return from_exception(exc)

    async def invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        problems = [_problem(error) for error in exc.errors()]
        first = problems[0] if problems else {"field": "", "message": "invalid"}
        message = f"Invalid value for '{first['field']}': {first['message']}."
        return error_response("invalid_params", message, {"problems": problems})

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 405:
            return error_response("method_not_allowed", "Method not allowed on this route.")
        if exc.status_code == 404:
            return error_response("not_found", "No such route.")
        if exc.status_code == 400:
            return error_response("parse_error", "The request body cannot be parsed.")
        return error_response("invalid_request", str(exc.detail))

    api.add_exception_handler(FruitctlError, domain_error)
    api.add_exception_handler(HttpProblem, domain_error)
    api.add_exception_handler(RequestValidationError, invalid)
    api.add_exception_handler(HTTPException, http_error)


def _problem(error: Any) -> dict[str, str]:
    where = ".".join(str(part) for part in error.get("loc", ())[1:]) or str(error.get("loc"))
    return {"field": where, "message": str(error.get("msg", "invalid"))}
