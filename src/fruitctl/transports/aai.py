"""Seed 004's AAI envelopes, on the daemon's socket and in-process, and the ``aai.json`` descriptor.

Request ``{"version": "1.0", "tool", "params", "request_id"}``; answer
``{"version", "request_id", "status": "success", "result"}`` or ``{"status": "error", "error":
{"code", "message", "retryable"}}`` with the table's AAI name of the code (upper snake case,
``LIST_NOT_ALLOWED``; ``domain.error_table``). A line that is not JSON, or an envelope missing a
field, is ``INVALID_REQUEST``. Tools are the registry's, called through the gateway like everywhere
(``Gateway.answer_now`` or ``ainvoke_off_loop`` on the socket).

The descriptor is generated from the registry: every tool's input schema as ``parameters``, and a
``returns`` schema from the tool function's return type (plus the pending-proposal shape for
writes, which a person may have to approve first).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from fruitctl import __version__
from fruitctl.domain import error_table
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import (
    FruitctlError,
    InternalError,
    InvalidParams,
    InvalidRequest,
    ParseError,
)
from fruitctl.gateway import Gateway
from fruitctl.private import make_dirs, write_private
from fruitctl.tools.model import Tool, ToolResult
from fruitctl.transports import strict_json
from fruitctl.transports.rpc.jsonrpc import Session
from fruitctl.transports.rpc.methods import output

VERSION = "1.0"
ENVELOPE_KEYS = frozenset({"tool", "version", "request_id", "params"})
SCHEMA_VERSION = "1.0"
DEFAULT_APP_ID = "dev.fruitctl.gateway"
APP_ID = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)*$")


class AaiDoor:
    """AAI envelopes for the socket's dispatcher (see ``jsonrpc.Envelopes``). ``limit``: the
    socket's request timeout, a cap on every call besides the tool's own deadline."""

    def __init__(self, gateway: Gateway, limit: float | None = None) -> None:
        self._gateway = gateway
        self._limit = limit

    def recognises(self, message: Any) -> bool:
        # An envelope missing its tool is still an envelope: answered INVALID_REQUEST in AAI.
        return (
            isinstance(message, dict)
            and "jsonrpc" not in message
            and not ENVELOPE_KEYS.isdisjoint(message)
        )

    def recognises_unparsed(self, line: bytes, session: Session) -> bool:
        # Not JSON: answer in the dialect the text resembles, else the one this connection
        # speaks (a CLI that identified itself over JSON-RPC may still send a broken envelope).
        if b'"jsonrpc"' not in line and any(f'"{key}"'.encode() in line for key in ENVELOPE_KEYS):
            return True
        return session.dialect == "aai"

    def malformed(self, error: FruitctlError) -> dict[str, Any]:
        return failure(None, InvalidRequest(error.message))

    def refused(self, answer: dict[str, Any], error: FruitctlError) -> dict[str, Any]:
        return failure(answer.get("request_id"), error)

    def answer(
        self, message: dict[str, Any], session: Session
    ) -> dict[str, Any] | Awaitable[dict[str, Any]]:
        try:
            tool, params, request_id = parse_request(message)
        except Exception as exc:
            return _failed(_request_id(message), exc)
        now = self._gateway.answer_now(tool, params, session.actor)
        if now is not None:
            return _answered(now, request_id)
        later = self._gateway.ainvoke_off_loop(tool, params, session.actor, limit=self._limit)
        return _later(later, request_id)


async def _later(pending: Awaitable[ToolResult], request_id: str) -> dict[str, Any]:
    return _answered(await pending, request_id)


def _answered(result: ToolResult, request_id: str) -> dict[str, Any]:
    if result.failure is not None:
        return failure(request_id, result.failure)
    return success(request_id, result.output)


def _failed(request_id: str | None, exc: Exception) -> dict[str, Any]:
    if isinstance(exc, FruitctlError):
        return failure(request_id, exc)
    return failure(request_id, InternalError.hidden())  # never a traceback on the wire


def answer_text(gateway: Gateway, text: str, actor: Actor) -> dict[str, Any]:
    """One envelope answered in this process (the CLI without a daemon)."""
    refused = refusal(text)
    if refused is not None:
        return refused
    tool, params, request_id = parse_request(strict_json.loads(text))
    return _call(gateway, tool, params, request_id, lambda: actor)()


def refusal(text: str) -> dict[str, Any] | None:
    """The ``INVALID_REQUEST`` answer to ``text`` when it is no AAI envelope (not JSON, or a
    field missing or wrong), worded as the socket words it; None when it is one. The CLI asks
    before it sends: a daemon that heard it speak JSON-RPC would answer broken text in JSON-RPC."""
    try:
        message = strict_json.loads(text)
    except ParseError as exc:
        return failure(None, InvalidRequest(exc.message))
    try:
        parse_request(message)
    except FruitctlError as exc:
        return failure(_request_id(message), exc)
    return None


def parse_request(message: Any) -> tuple[str, dict[str, Any], str]:
    if not isinstance(message, dict):
        raise InvalidRequest("An AAI request is a JSON object.")
    if "jsonrpc" in message:  # the socket would read it as JSON-RPC
        raise InvalidRequest('An AAI request has no "jsonrpc" field.')
    version, tool = message.get("version"), message.get("tool")
    params, request_id = message.get("params", {}), message.get("request_id")
    if not isinstance(version, str) or not version.startswith("1."):
        raise InvalidRequest(f'"version" must be "{VERSION}".')
    if not isinstance(tool, str) or not tool:
        raise InvalidRequest('"tool" must name a tool.')
    if not isinstance(request_id, str) or not request_id:
        raise InvalidRequest('"request_id" must be a non-empty string.')
    if not isinstance(params, dict):
        raise InvalidRequest('"params" must be a JSON object.')
    return tool, params, request_id


def success(request_id: str, result: Any) -> dict[str, Any]:
    return {"version": VERSION, "request_id": request_id, "status": "success", "result": result}


def failure(request_id: str | None, error: FruitctlError) -> dict[str, Any]:
    body: dict[str, Any] = {
        "code": error_table.row_of(error.code).aai,
        "message": error.message,
        "retryable": error.retryable,
    }
    if error.details:
        body["details"] = error.details
    return {"version": VERSION, "request_id": request_id, "status": "error", "error": body}


def _call(
    gateway: Gateway,
    tool: str,
    params: dict[str, Any],
    request_id: str,
    actor: Callable[[], Actor],
) -> Callable[[], dict[str, Any]]:
    def work() -> dict[str, Any]:
        try:
            return success(request_id, output(gateway.invoke(tool, params, actor())))
        except Exception as exc:
            return _failed(request_id, exc)

    return work


def _request_id(message: Any) -> str | None:
    found = message.get("request_id") if isinstance(message, dict) else None
    return found if isinstance(found, str) else None


# -- aai.json ------------------------------------------------------------------------------------


def descriptor(tools: list[Tool], app_id: str, socket_path: Path) -> dict[str, Any]:
    """Seed 004's ``aai.json`` for these tools (the registry's, in order)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "version": __version__,
        "platform": {"darwin": "macos"}.get(sys.platform, sys.platform.rstrip("0123456789")),
        "app": {
            "id": app_id,
            "name": "fruitctl",
            "description": "Governed access to reminders, calendars and a few local tools: "
            "reads answer at once, writes may wait for a person's approval.",
        },
        # ipc: one JSON envelope per line on this Unix socket (``fruitctl serve``).
        "execution": {"type": "ipc", "transport": "unix-socket", "socket": str(socket_path)},
        "tools": [
            {
                "name": tool.name,
                "description": tool.definition.description,
                "parameters": tool.definition.input_schema,
                "returns": returns_schema(tool),
            }
            for tool in tools
        ],
    }


def returns_schema(tool: Tool) -> dict[str, Any]:
    """What the tool answers (a write's includes the pending proposal), from its output type."""
    return tool.definition.output_schema


def install(document: dict[str, Any], aai_dir: Path, app_id: str) -> Path:
    """Write ``<aai_dir>/<app_id>/aai.json`` atomically: a reader sees the old file or the new."""
    if not APP_ID.match(app_id) or len(app_id) > 128:
        raise InvalidParams(f"'{app_id[:128]}' is not an app id (like com.example.app).")
    target = aai_dir / app_id / "aai.json"
    make_dirs(target.parent)
    write_private(target, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return target
