"""A read that fails for a reason that may pass runs once more; the call record and the stats
say so. Nothing else runs twice: not a refusal, not a read past its deadline, never a write."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

from gateways import gateway_with

from fruitctl import bootstrap
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import BackendUnavailable, InvalidParams, Timeout
from fruitctl.tools.context import ToolContext
from fruitctl.tools.inputs import Input
from fruitctl.tools.model import tool

HUMAN = Actor("human", "tester")
RUNS: dict[str, int] = {}


class Nothing(Input):
    pass


def _ran(name: str) -> int:
    RUNS[name] = RUNS.get(name, 0) + 1
    return RUNS[name]


@tool(category="read_only", risk="low", title="Flaky")
def flaky(args: Nothing, ctx: ToolContext) -> dict[str, int]:
    """Drops its first connection, answers the second."""
    if _ran("flaky") == 1:
        raise BackendUnavailable("The connection was dropped.")
    return {"runs": RUNS["flaky"]}


@tool(category="read_only", risk="low", title="Down")
def down(args: Nothing, ctx: ToolContext) -> None:
    """Always finds its backend down."""
    _ran("down")
    raise BackendUnavailable("The server is down.")


@tool(category="read_only", risk="low", title="Picky")
def picky(args: Nothing, ctx: ToolContext) -> None:
    """Refuses what it was asked: not a failure that passes."""
    _ran("picky")
    raise InvalidParams("Not like that.")


@tool(category="read_only", risk="low", title="Slow", timeout=0.2)
def slow(args: Nothing, ctx: ToolContext) -> None:
    """Outlives its deadline once, then would answer at once."""
    if _ran("slow") == 1:
        time.sleep(0.6)


@tool(category="network", risk="low", title="Post", read_only=False)
def post(args: Nothing, ctx: ToolContext) -> None:
    """Sends something out and loses the connection: it may have landed."""
    _ran("post")
    raise Timeout("The server did not answer in time.")


def _events(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.startswith("{")]


def _stats() -> dict[str, dict[str, Any]]:
    app = bootstrap.build()
    try:
        return {r["tool"]: r for r in app.stats(0)}
    finally:
        app.close()


def test_a_dropped_read_runs_once_more_and_telemetry_says_so(home: Path) -> None:
    RUNS.clear()
    log = io.StringIO()
    with gateway_with([flaky, down, picky], log) as gateway:
        ok = gateway.invoke("flaky", {}, HUMAN)
        failed = gateway.invoke("down", {}, HUMAN)
        refused = gateway.invoke("picky", {}, HUMAN)
        gateway.flush()
    assert ok.success and ok.output == {"runs": 2} and ok.metadata["retries"] == 1
    assert not failed.success and failed.error_code == "backend_unavailable"
    assert failed.metadata["retries"] == 1
    assert not refused.success and "retries" not in refused.metadata
    assert RUNS == {"flaky": 2, "down": 2, "picky": 1}  # once more, never more
    retried = [e for e in _events(log) if e["event"] == "tool_call_retried"]
    assert [(e["tool_name"], e["error_code"]) for e in retried] == [
        ("flaky", "backend_unavailable"),
        ("down", "backend_unavailable"),
    ]
    rows = _stats()
    assert (rows["flaky"]["retried"], rows["flaky"]["executed"]) == (1, 1)
    assert (rows["down"]["retried"], rows["down"]["failed"]) == (1, 1)
    assert rows["picky"]["retried"] == 0


def test_a_read_past_its_deadline_and_a_write_are_never_run_again(home: Path) -> None:
    RUNS.clear()
    with gateway_with([slow, post], io.StringIO()) as gateway:
        late = gateway.invoke("slow", {}, HUMAN)
        sent = gateway.invoke("post", {}, HUMAN)
        gateway.flush()
    assert late.error_code == "timeout" and "retries" not in late.metadata
    assert sent.error_code == "timeout" and "retries" not in sent.metadata
    assert RUNS == {"slow": 1, "post": 1}
    rows = _stats()
    assert rows["slow"]["retried"] == rows["post"]["retried"] == 0
