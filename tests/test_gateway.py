"""Gateway.invoke: lookup, validation, policy, execution under a timeout, results, telemetry.
Seed 001's success criteria, end to end through real stores."""

from __future__ import annotations

import asyncio
import inspect
import io
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gateways import gateway_with
from pydantic import Field
from searx_server import running_searx

from fruitctl import bootstrap
from fruitctl.config import load
from fruitctl.domain.actors import Actor
from fruitctl.gateway import Gateway
from fruitctl.tools.context import ToolContext
from fruitctl.tools.inputs import Input
from fruitctl.tools.model import Tool, tool
from fruitctl.transports.rpc.jsonrpc import Session
from fruitctl.transports.rpc.methods import build_methods

AGENT = Actor("agent", "test-agent")
HUMAN = Actor("human", "tester")


class Nap(Input):
    seconds: float = Field(0, description="How long to sleep.")


@tool(category="read_only", risk="low", title="Sleep", timeout=0.3)
def nap(args: Nap, ctx: ToolContext) -> dict[str, Any]:
    """Sleep for a while (a tool that can outlive its timeout)."""
    time.sleep(args.seconds)
    return {"slept": args.seconds}


class Nothing(Input):
    pass


@tool(category="read_only", risk="low", title="Crash")
def crash(args: Nothing, ctx: ToolContext) -> None:
    """Always fails with an unexpected exception."""
    raise RuntimeError("secret internals at /home/someone/.ssh")


@tool(category="read_only", risk="low", title="Where")
def where(args: Nothing, ctx: ToolContext) -> str:
    """The name of the thread the tool runs on."""
    return threading.current_thread().name


@pytest.fixture
def app(home: Path) -> Iterator[bootstrap.App]:
    built = bootstrap.build()
    yield built
    built.close()


@pytest.fixture
def log_stream() -> io.StringIO:
    return io.StringIO()


@pytest.fixture
def custom(home: Path, log_stream: io.StringIO) -> Iterator[Gateway]:
    """A gateway over three test tools plus the catalog, logging into a string."""
    with gateway_with([nap, crash, where], log_stream) as gateway:
        yield gateway


def events(gateway: Gateway, stream: io.StringIO) -> list[dict[str, Any]]:
    gateway.flush()
    return [json.loads(line) for line in stream.getvalue().splitlines()]


# -- seed 001 success criteria --------------------------------------------------------------


def test_registry_lists_every_reminder_and_machine_tool(app: bootstrap.App) -> None:
    names = set(app.gateway.registry.names())
    assert {
        "query_reminders",
        "get_lists",
        "create_reminders",
        "update_reminders",
        "delete_reminders",
        "open_reminders",
        "get_reminder",
        "read_file",
        "list_directory",
        "write_file",
        "system_metrics_snapshot",
        "check_process_health",
        "read_system_logs",
        "web_search",
    } <= names
    for definition in app.gateway.registry.list_tools():
        assert definition.input_schema["additionalProperties"] is False
        assert definition.description and definition.title


def test_a_read_runs_and_reports_latency(app: bootstrap.App) -> None:
    result = app.gateway.invoke("get_lists", {}, AGENT)
    assert result.success and result.error is None
    assert result.output[0]["name"] == "Reminders"
    assert result.latency_ms > 0 and len(result.trace_id) == 32


def test_three_mvp_tools_work_through_the_gateway(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = home / "workspace"
    workspace.mkdir(parents=True)
    (workspace / "note.txt").write_text("hello")
    with running_searx() as searx:
        monkeypatch.setenv("FRUITCTL_WEB__PROVIDER", "searxng")
        monkeypatch.setenv("FRUITCTL_WEB__SEARXNG_URL", searx.url)
        app = bootstrap.build()
        read = app.gateway.invoke("read_file", {"path": str(workspace / "note.txt")}, AGENT)
        metrics = app.gateway.invoke("system_metrics_snapshot", {}, AGENT)
        search = app.gateway.invoke("web_search", {"query": "fruit", "max_results": 2}, AGENT)
        app.close()
    assert read.success and read.output["content"] == "hello"
    assert metrics.success and metrics.output["memory"]["total_bytes"] > 0
    assert search.success, search.error
    assert search.output["count"] == 2 and search.output["results"][0]["url"].startswith("http")
    assert searx.paths and "format=json" in searx.paths[0]


def test_unknown_tools_and_bad_arguments_are_results(app: bootstrap.App) -> None:
    missing = app.gateway.invoke("no_such_tool", {}, AGENT)
    assert (missing.success, missing.error_code) == (False, "method_not_found")
    bad = app.gateway.invoke("query_reminders", {"limit": 500}, AGENT)
    assert bad.error_code == "invalid_params" and "'limit'" in (bad.error or "")
    extra = app.gateway.invoke("get_lists", {"surprise": 1}, AGENT)
    assert extra.error_code == "invalid_params" and "surprise" in (extra.error or "")
    missing_title = app.gateway.invoke("create_reminders", {"reminders": [{}]}, AGENT)
    assert missing_title.error == "Action 'create' requires 'title' to be specified."
    no_id = app.gateway.invoke("update_reminders", {"reminders": [{"title": "x"}]}, AGENT)
    assert no_id.error == "Action 'update' requires 'id' to be specified."
    no_ids = app.gateway.invoke("delete_reminders", {}, AGENT)
    assert no_ids.error == "Action 'delete' requires 'ids' to be specified."


def test_a_crashing_tool_is_an_internal_error_without_internals(custom: Gateway) -> None:
    result = custom.invoke("crash", {}, AGENT)
    assert (result.success, result.error_code) == (False, "internal_error")
    assert ".ssh" not in (result.error or "") and "Traceback" not in (result.error or "")


def test_a_slow_tool_times_out_and_the_gateway_stays_responsive(custom: Gateway) -> None:
    started = time.perf_counter()
    slow = custom.invoke("nap", {"seconds": 3}, AGENT)
    assert slow.error_code == "timeout" and slow.metadata["retryable"] is True
    assert time.perf_counter() - started < 2
    quick = custom.invoke("nap", {"seconds": 0}, AGENT)
    assert quick.success and quick.output == {"slept": 0}


def test_telemetry_events_carry_trace_ids_and_never_a_note_body(
    custom: Gateway, log_stream: io.StringIO
) -> None:
    secret = "the combination is 12-34-56"
    custom.invoke(
        "create_reminders",
        {"reminders": [{"title": "safe", "notes": secret}]},
        HUMAN,
        trace_id="ab" * 16,
    )
    custom.invoke("crash", {}, AGENT)
    custom.invoke("create_reminders", {"reminders": [{"title": "x"}]}, AGENT)
    logged = events(custom, log_stream)
    kinds = [e["event"] for e in logged]
    assert kinds[:2] == ["tool_call_started", "tool_call_completed"]
    assert "tool_call_failed" in kinds and "tool_call_blocked" in kinds
    for event in logged:
        assert event["trace_id"] and event["span_id"] and event["tool_name"] and event["actor"]
    assert logged[0]["trace_id"] == "ab" * 16
    assert logged[0]["arguments"]["reminders"][0]["notes"] == f"<redacted {len(secret)}>"
    assert secret not in log_stream.getvalue()


def test_concurrent_calls_do_not_interfere(custom: Gateway) -> None:
    results: list[Any] = []
    threads = [
        threading.Thread(target=lambda: results.append(custom.invoke("get_lists", {}, AGENT)))
        for _ in range(16)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 16 and all(r.success for r in results)


# -- governance through the gateway --------------------------------------------------------


def test_pim_writes_from_an_agent_wait_as_proposals(app: bootstrap.App) -> None:
    result = app.gateway.invoke("create_reminders", {"reminders": [{"title": "x"}]}, AGENT)
    assert result.success and result.output["status"] == "pending"
    assert result.output["approve"] == f"fruitctl proposals approve {result.output['proposalId']}"
    assert app.call("query_reminders", {}) == []  # nothing was written


def test_a_person_writes_directly(app: bootstrap.App) -> None:
    created = app.call("create_reminders", {"reminders": [{"title": "mine"}]}, HUMAN)
    assert created[0]["title"] == "mine"


def test_lockdown_refuses_writes_with_the_reason_and_keeps_reads(
    app: bootstrap.App, home: Path
) -> None:
    app.modes.set("LOCKDOWN", "test")
    denied = app.gateway.invoke("create_reminders", {"reminders": [{"title": "x"}]}, HUMAN)
    assert denied.error_code == "mode_forbidden"
    assert denied.error == "create_reminders is not allowed in LOCKDOWN mode."
    (home / "workspace").mkdir(parents=True)
    write = app.gateway.invoke(
        "write_file", {"path": str(home / "workspace" / "a.txt"), "content": "x"}, HUMAN
    )
    assert write.error_code == "mode_forbidden"
    assert not (home / "workspace" / "a.txt").exists()
    assert app.gateway.invoke("get_lists", {}, AGENT).success


def test_write_file_follows_the_mode(app: bootstrap.App, home: Path) -> None:
    workspace = home / "workspace"
    workspace.mkdir(parents=True)
    target = str(workspace / "out.txt")
    assert app.gateway.invoke("write_file", {"path": target, "content": "1"}, AGENT).success
    app.modes.set("ALERT", "test")
    waiting = app.gateway.invoke("write_file", {"path": target, "content": "2"}, AGENT)
    assert waiting.success and waiting.output["status"] == "pending"
    assert (workspace / "out.txt").read_text() == "1"
    app.gateway.decide(waiting.output["proposalId"], "approve", HUMAN)
    assert (workspace / "out.txt").read_text() == "2"


def test_paths_outside_the_roots_are_denied_before_running(app: bootstrap.App, home: Path) -> None:
    outside = app.gateway.invoke("write_file", {"path": "/etc/evil", "content": "x"}, AGENT)
    assert outside.error_code == "permission_denied"
    secret = app.gateway.invoke("read_file", {"path": str(home / "state.db")}, AGENT)
    assert secret.error_code == "permission_denied"


def test_where_a_read_runs_depends_on_who_asks(custom: Gateway, app: bootstrap.App) -> None:
    # A caller's own thread (the CLI) is never abandoned: its read runs on a gateway worker,
    # under the deadline. A door's thread is let go at the deadline: its read runs right there.
    assert custom.invoke("where", {}, AGENT).output.startswith("fruitctl-tool")
    from_a_door = asyncio.run(custom.ainvoke("where", {}, AGENT))
    assert not from_a_door.output.startswith("fruitctl-tool")
    assert from_a_door.output != threading.current_thread().name
    # A write never runs on the door's thread: it still goes through approvals (a proposal).
    proposed = asyncio.run(
        app.gateway.ainvoke("create_reminders", {"reminders": [{"title": "x"}]}, AGENT)
    )
    assert proposed.output["status"] == "pending"


def test_reads_the_store_answers_at_once_run_on_the_loop(app: bootstrap.App) -> None:
    gateway, registry = app.gateway, app.gateway.registry
    # Opening a store (a migration, a first sync, a permission prompt) takes a thread.
    assert not any(gateway.runs_on_loop(t, {}) for t in registry)
    app.gateway.context.reminders, app.gateway.context.calendar  # noqa: B018  (opened)
    on_loop = {t.name for t in registry if gateway.runs_on_loop(t, {})}
    reads = {"get_lists", "open_reminders", "query_reminders", "calendar_upcoming", "query_events"}
    assert on_loop == reads
    assert gateway.runs_on_loop(_tool(app, "get_reminder"), {"id": "x"})
    # The store judges each call: an index walk of a bounded number of rows, a short range.
    query, events = _tool(app, "query_reminders"), _tool(app, "query_events")
    assert gateway.runs_on_loop(query, {"list": {"all": True}, "status": "completed"})
    assert not gateway.runs_on_loop(query, {"query": "[?priority == `1`]"})
    assert not gateway.runs_on_loop(query, {"sortBy": "priority"})
    assert not gateway.runs_on_loop(query, {"status": "all"})
    assert not gateway.runs_on_loop(query, {"limit": 200, "offset": 900})
    assert not gateway.runs_on_loop(query, {"list": {"name": "No such list"}})
    assert not gateway.runs_on_loop(events, {"from": "2026-01-01", "to": "2026-03-01"})
    # The socket gets such an answer as it is; anything else is awaited off the loop.
    methods = build_methods(gateway, lambda: {}, "token")
    session = Session(lambda: AGENT)
    assert isinstance(methods["reminders.open"].run({}, session), dict)
    assert isinstance(methods["calendar.upcoming"].run({"days": 30}, session), dict)
    assert isinstance(methods["reminders.query"].run({"list": {"all": True}}, session), list)
    assert isinstance(methods["tools.call"].run({"name": "get_lists"}, session), list)
    for name, params in (
        ("reminders.query", {"query": "[?priority == `1`]"}),
        ("reminders.create", {"reminders": [{"title": "x"}]}),
        ("tools.call", {"name": "query_reminders", "arguments": {"sortBy": "priority"}}),
    ):
        pending = methods[name].run(params, session)
        assert inspect.isawaitable(pending), name
        assert asyncio.run(_awaited(pending)) is not None


async def _awaited(pending: Any) -> Any:
    return await pending


def _tool(app: bootstrap.App, name: str) -> Tool:
    found = app.gateway.registry.get(name)
    assert found is not None
    return found


class _Opaque:
    """A store that does not say which of its reads are quick (a plugin's, say)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        if name == "answers_at_once":
            raise AttributeError(name)
        return getattr(self._inner, name)


def test_no_read_runs_on_a_loop_when_the_store_cannot_tell(home: Path) -> None:
    config = load()
    reminders = bootstrap.reminders_backend_factory(config)
    calendars = bootstrap.calendar_backend_factory(config)
    plugin = bootstrap.App(
        config,
        lambda c: _Opaque(reminders(c)),
        calendar_factory=lambda c: _Opaque(calendars(c)),
    )
    try:
        plugin.gateway.context.reminders, plugin.gateway.context.calendar  # noqa: B018  (opened)
        assert not any(plugin.gateway.runs_on_loop(t, {}) for t in plugin.gateway.registry)
        methods = build_methods(plugin.gateway, lambda: {}, "token")
        session = Session(lambda: AGENT)
        for name in ("reminders.open", "calendar.upcoming", "reminders.query"):
            pending = methods[name].run({}, session)
            assert inspect.isawaitable(pending), name
            asyncio.run(_awaited(pending))
    finally:
        plugin.close()


class _BrokenRule:
    """A policy with a bug in it: whatever a rule raises must stay inside the gateway."""

    def judge(self, *_: Any) -> None:
        raise RuntimeError("a rule's bug at /home/someone/.ssh")


def test_a_rule_that_raises_is_a_recorded_internal_error_never_a_raise(
    custom: Gateway, log_stream: io.StringIO
) -> None:
    custom.policy = _BrokenRule()  # type: ignore[assignment]
    result = custom.invoke("read_file", {"path": "/etc/hostname"}, AGENT)
    assert (result.success, result.error_code) == (False, "internal_error")
    assert ".ssh" not in (result.error or "")
    crashed = [e for e in events(custom, log_stream) if e["event"] == "tool_call_crashed"]
    assert [e["trace_id"] for e in crashed] == [result.trace_id]
