"""What every route shares: the gateway call, the result rendered as a response, the JSON body.

Routes are ``async`` and hand the (blocking) gateway call to a worker thread, so the event loop
never waits on SQLite; the answer is the tool's output exactly as the gateway returned it.

The routes are built once per process (``app.create_app`` keeps them) and shared by every API
made from it: building one is most of what making an API costs. So a route never holds the
fruitctl app it serves: the ``Door`` it was built with finds it in ``Serving``, which the API
sets for each request it takes in.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from fastapi import Query
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from fruitctl.capabilities import toolsets
from fruitctl.domain.errors import FruitctlError, MethodNotFound, ParseError
from fruitctl.tools.model import ToolResult
from fruitctl.transports import strict_json
from fruitctl.transports.http.errors import HttpProblem, from_exception
from fruitctl.transports.http.tokens import Claims, TokenStore
from fruitctl.transports.http.ui.session import Sessions

if TYPE_CHECKING:
    from fastapi import FastAPI

    from fruitctl.bootstrap import App
    from fruitctl.tools.registry import ToolRegistry

TOOL_KEY = "x-fruitctl-tool"
Shape = Callable[[Any], Any]
M = TypeVar("M", bound=BaseModel)


class Json(JSONResponse):
    """UTF-8 JSON; text that cannot be UTF-8 (a lone surrogate) goes out as ASCII escapes
    instead of failing the response."""

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except UnicodeEncodeError:
            return json.dumps(content, allow_nan=False, separators=(",", ":")).encode("ascii")


@dataclass(frozen=True)
class Serving:
    """What one API serves a request with: its fruitctl app, the token store that admits its
    callers, the approval page's sessions, and the API itself (for its OpenAPI document)."""

    app: App
    tokens: TokenStore
    sessions: Sessions
    api: FastAPI


SERVING: ContextVar[Serving] = ContextVar("fruitctl_http_serving")
"""Set by ``app.create_app``'s outermost layer for each request, for the length of it (its
worker-thread calls see it too: they run in a copy of the request's context)."""


@dataclass(frozen=True)
class Door:
    """The routes' way to the app serving the current request. ``registry``: the tools' declared
    inputs a route's parameters and body schemas are built from, the same for every app the
    routes serve (``create_app`` keeps one set of routes per set of declarations)."""

    registry: ToolRegistry

    @property
    def serving(self) -> Serving:
        return SERVING.get()

    @property
    def app(self) -> App:
        return SERVING.get().app

    async def call(
        self,
        tool: str,
        args: dict[str, Any],
        claims: Claims,
        request: Request,
        *,
        status: int = 200,
        shape: Shape | None = None,
    ) -> Response:
        """Invoke ``tool`` as the token's actor and render the result; a tool outside the
        token's tool set is refused, never run."""
        if not toolsets.offers(claims.tools, tool):
            return from_exception(MethodNotFound.not_offered(tool, claims.tools or ()))
        key = request.headers.get("idempotency-key")
        result = await self.app.gateway.ainvoke(tool, args, claims.actor, idempotency_key=key)
        return render(result, status, shape)

    async def run(self, function: Callable[..., Any], *args: Any) -> Any:
        """A blocking call (approvals, audit) on a worker thread; its error becomes a response
        through the app's handler."""
        return await run_in_threadpool(function, *args)

    def query(self, tool: str, name: str, **options: Any) -> Any:
        """A query parameter with the default, bounds and description the tool's own input
        schema gives its argument ``name``, so a route never restates them (``options`` adds
        an alias, say)."""
        found = self.registry.get(tool)
        if found is None:
            raise LookupError(f"no tool {tool!r} for a route parameter")
        field = found.definition.input_schema["properties"][name]
        limits = {"minimum": "ge", "maximum": "le", "exclusiveMinimum": "gt"}
        bounds = {key: field[word] for word, key in limits.items() if word in field}
        if "description" in field:
            bounds["description"] = field["description"]
        return Query(field.get("default"), **bounds, **options)

    def body_schema(self, tool: str, *, item: str | None = None, drop: str | None = None) -> Any:
        """``openapi_extra`` declaring a route's JSON body as the tool's own input schema (or the
        schema of one item of its ``item`` array, without the ``drop`` property)."""
        found = self.registry.get(tool)
        schema: dict[str, Any] = {"type": "object"}
        if found is not None:
            schema = copy.deepcopy(found.definition.input_schema)
        if item is not None:
            schema = schema["properties"][item]["items"]
        if drop is not None:
            schema["properties"].pop(drop, None)
            required = [name for name in schema.get("required", []) if name != drop]
            schema.pop("required", None)
            if required:
                schema["required"] = required
        return {
            TOOL_KEY: tool,
            "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}},
        }


def render(result: ToolResult, status: int = 200, shape: Shape | None = None) -> Response:
    if result.failure is not None:
        response: Response = from_exception(result.failure)
    elif result.metadata.get("pending"):
        pending = result.output
        response = Json(pending, 202, headers={"Location": f"/proposals/{pending['proposalId']}"})
    else:
        try:
            response = Json(shape(result.output) if shape else result.output, status)
        except FruitctlError as exc:
            response = from_exception(exc)
    response.headers["X-Trace-Id"] = result.trace_id
    return response


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object, read strictly (``strict_json``: no NaN, no nesting past its
    limit) - the one place a route's body is parsed. Not JSON: a 400 ``PARSE_ERROR``; JSON but
    not an object: a 422, both in seed 003's shape."""
    try:
        body = strict_json.loads(await request.body())
    except ParseError as exc:
        raise HttpProblem("parse_error", f"The request body is not valid: {exc.message}") from exc
    if not isinstance(body, dict):
        raise HttpProblem("invalid_params", "The request body must be a JSON object.")
    return body


def model_body(model: type[M], *, required: bool = True) -> Callable[..., Awaitable[M | None]]:
    """A route dependency: the body read by ``json_body`` and validated as ``model`` (None when
    it is optional and empty); the route declares it with ``model_schema``."""

    async def parsed(request: Request) -> M | None:
        if not required and not await request.body():
            return None
        body = await json_body(request)
        try:
            return model.model_validate(body)
        except ValidationError as exc:
            located = [{**error, "loc": ("body", *error["loc"])} for error in exc.errors()]
            raise RequestValidationError(located) from exc

    return parsed


def model_schema(model: type[BaseModel], *, required: bool = True) -> dict[str, Any]:
    """``openapi_extra`` declaring a route's JSON body as ``model`` (read by ``model_body``)."""
    schema = model.model_json_schema()
    content = {"application/json": {"schema": schema}}
    return {"requestBody": {"required": required, "content": content}}
