"""The child's side of ``run_in_child``: read one request from stdin, check and load the
target again (it trusts no one, its parent included), run it, print one JSON reply."""

from __future__ import annotations

import contextlib
import importlib
import json
import sys
from collections.abc import Callable
from typing import Any

from fruitctl.domain.errors import (
    ExecutionFailed,
    FruitctlError,
    InvalidParams,
)
from fruitctl.sandbox.calls import check_target

REQUEST_MAX = 4_000_000


# -- the child's side -----------------------------------------------------------------------------


def main() -> int:
    """Read one request from stdin, run it, print one JSON reply: always exit 0 with a reply,
    so anything else the parent sees is a crash."""
    reply = _answer(sys.stdin.buffer.read(REQUEST_MAX + 1))
    sys.stdout.buffer.write(reply + b"\n")
    sys.stdout.buffer.flush()
    return 0


def _answer(raw: bytes) -> bytes:
    try:
        target, payload = _parse_request(raw)
        function = load_target(target)
        with contextlib.redirect_stdout(sys.stderr):  # stray prints must not corrupt the reply
            result = function(payload)
        return _dump({"ok": result})
    except FruitctlError as exc:
        return _dump_error(exc.code, exc.message, exc.details)
    except Exception as exc:  # any other failure: its message only, never a traceback
        return _dump_error(ExecutionFailed.code, str(exc) or type(exc).__name__, {})


def _parse_request(raw: bytes) -> tuple[str, Any]:
    if len(raw) > REQUEST_MAX:
        raise InvalidParams(f"The sandbox request is larger than {REQUEST_MAX} bytes.")
    try:
        request = json.loads(raw)
    except ValueError as exc:
        raise InvalidParams("The sandbox request is not JSON.") from exc
    if not isinstance(request, dict) or set(request) != {"target", "payload"}:
        raise InvalidParams("The sandbox request must be {'target': ..., 'payload': ...}.")
    return request["target"], request["payload"]


def load_target(target: str) -> Callable[[Any], Any]:
    """The function a target names, after ``check_target`` (the child checks again: it trusts
    no one, its parent included)."""
    check_target(target)
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise InvalidParams(f"Sandbox target '{target}' does not exist.") from exc
    function = getattr(module, attribute, None)
    if not callable(function):
        raise InvalidParams(f"Sandbox target '{target}' is not a function.")
    return function  # type: ignore[no-any-return]


def _dump(reply: dict[str, Any]) -> bytes:
    return json.dumps(reply, ensure_ascii=True, allow_nan=False).encode()


def _dump_error(code: str, message: str, details: dict[str, Any]) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if details:
        error["details"] = json.loads(json.dumps(details, default=str))
    return json.dumps({"error": error}, ensure_ascii=True, default=str).encode()
