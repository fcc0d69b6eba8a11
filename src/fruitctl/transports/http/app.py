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

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles

from fruitctl import __version__
from fruitctl.domain.errors import FruitctlError
from fruitctl.transports.http.auth import admin_only, authenticator
from fruitctl.transports.http.door import Door
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
    door = Door(app)
    user = authenticator(tokens)
    admin = admin_only(user)
    api.include_router(system.router(door, user, lambda: api))
    api.include_router(reminders.router(door, user))
    if app.gateway.registry.get("query_events") is not None:
        api.include_router(calendar.router(door, user))
    if app.gateway.registry.get("query_todos") is not None:
        api.include_router(things.router(door, user))
    api.include_router(proposals.router(door, user, admin))
    api.include_router(grants.router(door, admin))
    api.include_router(tools.router(door, user, admin))
    api.include_router(pages.router(door, Sessions(tokens)))
    static = files("fruitctl.transports.http").joinpath("static")
    api.mount("/ui/static", StaticFiles(directory=str(static)), name="static")
    _handle_errors(api)
    api.add_middleware(
        Guard,
        max_body_bytes=settings.max_body_bytes,
        hosts=None if allowed_hosts is None else list(allowed_hosts),
    )
    return api


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
