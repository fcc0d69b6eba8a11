"""A fruitctl function in a fresh, limited Python process: the parent's side. The request goes
to the child on stdin (``fruitctl.sandbox.child``); its one-line JSON reply comes back as the
function's result or as the same kind of ``FruitctlError``, never as a traceback."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from typing import Any

from fruitctl.domain.errors import (
    ExecutionFailed,
    FruitctlError,
    InvalidParams,
    Timeout,
    from_code,
)
from fruitctl.sandbox.runner import CommandResult, Limits, execute, scrubbed_env

CHILD_MODULE = "fruitctl.sandbox"  # run as ``python -m``: its __main__ is the child's side
CHILD_OUTPUT_MAX = 16_000_000
"""A Python child's reply is one JSON document; past this it is refused, not parsed."""
_TARGET = re.compile(r"^fruitctl(\.[A-Za-z_][A-Za-z0-9_]*)+:[A-Za-z_][A-Za-z0-9_]*$")


# -- a fruitctl function in a child Python ---------------------------------------------------------


def run_in_child(target: str, payload: dict[str, Any], *, timeout: float, limits: Limits) -> Any:
    """Call ``target`` (``"fruitctl.module:function"``) with ``payload`` in a fresh, limited
    Python process and return what it returned.

    An error the function raised arrives as the same kind of ``FruitctlError`` with its message;
    running out of time is ``Timeout`` (retryable); a crash, a resource-limit kill or a reply that
    is not one JSON document is ``ExecutionFailed``. No traceback crosses the boundary.
    """
    check_target(target)
    request = _encode_request(target, payload)
    argv = [sys.executable, "-P", "-m", CHILD_MODULE]  # -P: the working directory is not on path
    result = execute(argv, timeout, limits, python_env(), CHILD_OUTPUT_MAX, stdin_data=request)
    return _reply_of(target, timeout, limits, result)


def python_env() -> dict[str, str]:
    """What a fruitctl child needs to import fruitctl and find its configuration, and no more:
    the parent's import path, HOME and the FRUITCTL_* settings, on top of ``scrubbed_env``."""
    extra = {key: value for key, value in os.environ.items() if key.startswith("FRUITCTL_")}
    if os.environ.get("HOME"):
        extra["HOME"] = os.environ["HOME"]
    paths = [os.path.abspath(entry) for entry in sys.path if entry]
    extra["PYTHONPATH"] = os.pathsep.join(p for p in dict.fromkeys(paths) if os.path.exists(p))
    return scrubbed_env(extra)


def check_target(target: str) -> None:
    """Only fruitctl's own functions run in the sandbox child: a target names code, and code from
    anywhere else is exactly what the sandbox must not be tricked into loading."""
    if not isinstance(target, str) or not _TARGET.match(target):
        shown = str(target)[:120]
        raise InvalidParams(
            f"Sandbox target '{shown}' is refused: only 'fruitctl.<module>:<function>' can run."
        )


def _encode_request(target: str, payload: dict[str, Any]) -> bytes:
    try:
        body = json.dumps({"target": target, "payload": payload}, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidParams("A sandboxed call's payload must be plain JSON data.") from exc
    return body.encode()


def _reply_of(target: str, timeout: float, limits: Limits, result: CommandResult) -> Any:
    if result.timed_out:
        raise Timeout(f"'{target}' did not finish within {timeout:g} s; its processes were killed.")
    if result.truncated:
        raise ExecutionFailed(f"'{target}' replied with more than {CHILD_OUTPUT_MAX} bytes.")
    reply = _last_json_object(result.stdout)
    if result.process_limit_reached and (reply is None or "ok" not in reply):
        raise ExecutionFailed(
            f"'{target}' tried to run more than {limits.processes} processes at once "
            "(the sandbox's process limit) and failed."
        )
    if reply is None or not ("ok" in reply or "error" in reply):
        raise ExecutionFailed(f"'{target}' {_death(result.exit_code)}.")
    if "ok" in reply:
        return reply["ok"]
    raise error_from_reply(reply["error"])


def _last_json_object(text: str) -> dict[str, Any] | None:
    """The reply is the child's last line: anything a library printed before it is ignored."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    try:
        reply = json.loads(lines[-1])
    except ValueError:
        return None
    return reply if isinstance(reply, dict) else None


_SIGNAL_REASONS: dict[int, str] = {
    signal.SIGXCPU.value: "ran out of CPU time",
    signal.SIGKILL.value: "was killed (CPU or memory limit)",
    signal.SIGXFSZ.value: "wrote a file larger than its limit",
    signal.SIGSEGV.value: "crashed",
    signal.SIGABRT.value: "aborted (often: out of memory)",
}


def _death(exit_code: int) -> str:
    """Why a child gave no reply, in words (never its stderr: that can hold a traceback)."""
    if exit_code < 0:
        reason = _SIGNAL_REASONS.get(-exit_code, "was ended by a signal")
        return f"{reason} ({_signal_name(-exit_code)})"
    if exit_code == 0:
        return "exited without a readable reply"
    return f"failed with exit status {exit_code} and no reply"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def error_from_reply(error: object) -> FruitctlError:
    """The ``FruitctlError`` a child reported as ``{"code", "message"[, "details"]}``; an
    unknown code becomes ``ExecutionFailed``."""
    if not isinstance(error, dict):
        return ExecutionFailed("A sandboxed call failed without saying why.")
    message = str(error.get("message") or "A sandboxed call failed.")
    details = error.get("details")
    extra = details if isinstance(details, dict) else {}
    return from_code(str(error.get("code")), message, default=ExecutionFailed, **extra)
