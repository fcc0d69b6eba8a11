"""``Gateway.invoke(tool, args, actor)``: the one entry every front door uses for a call, and
``Gateway.decide(proposal, action, actor)`` the one it uses for a person's decision.

invoke: lookup -> argument validation -> policy decision -> execution under the tool's timeout
(or, for a write that needs approval, its targets resolved and the workable part filed as a
proposal) -> ``ToolResult`` -> telemetry. Every failure comes back as a result with a canonical
error code; nothing raises out of ``invoke``. A call past its timeout is abandoned (its thread
finishes in the background) and the gateway answers ``timeout`` and stays responsive.

decide: approving asks the policy again, for the person, on the stored arguments of the agent's
write (mode, the agent's allowlists and rate limit); a denial keeps the proposal pending with
the reason. An allowed approval executes exactly once and is recorded as a call under the
proposal's trace id (``approved`` or ``failed``), like any other call.
"""

from __future__ import annotations

import contextvars
import inspect
import time
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from fruitctl.domain.errors import (
    FruitctlError,
    InternalError,
    MethodNotFound,
    NotFound,
    PermissionDenied,
    Timeout,
    Unsupported,
    from_code,
)
from fruitctl.policy.decision import Actor, Decision
from fruitctl.policy.engine import Policy
from fruitctl.telemetry import CallRecord, CallRecorder, EventLog, new_span_id, new_trace_id
from fruitctl.tools.context import ToolContext, current_actor
from fruitctl.tools.model import Tool, ToolResult
from fruitctl.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from fruitctl.approvals.engine import Approvals

ChildRunner = Callable[[str, dict[str, Any], float, Any], Any]
Action = Literal["approve", "reject", "undo"]
ACTIONS: tuple[Action, ...] = ("approve", "reject", "undo")


@dataclass
class _Call:
    name: str
    actor: Actor
    trace_id: str
    span_id: str
    started: float
    args: Any = None


class Gateway:
    def __init__(
        self,
        registry: ToolRegistry,
        policy: Policy,
        context: ToolContext,
        log: EventLog,
        recorder: CallRecorder,
        run_child: ChildRunner,
        workers: int = 8,
    ) -> None:
        self.registry = registry
        self.policy = policy
        self.context = context
        self._log = log
        self._recorder = recorder
        self._run_child = run_child
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fruitctl-tool")

    approvals: Approvals | None = None
    """Set by the composition root; without it a write that needs approval is refused."""

    def invoke(
        self,
        name: str,
        args: Mapping[str, Any] | None,
        actor: Actor,
        *,
        trace_id: str | None = None,
        idempotency_key: str | None = None,
        inline: bool = False,
    ) -> ToolResult:
        """Run one call through lookup, validation, policy and execution; failures are results.

        ``inline``: the caller is on a thread of its own that it abandons at a deadline it
        enforces (the socket's per-request timeout). A plain in-process read then runs right
        here instead of hopping to the tool pool, the hop being most of what a fast read costs;
        writes and sandboxed tools always take the pool and their own timeout."""
        call = _Call(name, actor, trace_id or new_trace_id(), new_span_id(), time.perf_counter())
        tool = self.registry.get(name)
        if tool is None:
            return self._failed(call, MethodNotFound(f"Unknown tool '{name}'."))
        try:
            parsed = tool.parse(args)
            call.args = parsed
            decision = self.policy.decide(tool, parsed, actor, self.context)
        except FruitctlError as exc:
            return self._failed(call, exc)
        if decision.verdict == "propose" and self.approvals is not None:
            return self._proposed(call, tool, parsed, idempotency_key)
        if decision.verdict != "allow":
            return self._blocked(call, decision)
        return self._execute(call, tool, parsed, idempotency_key, inline)

    def answer(
        self,
        name: str,
        args: Mapping[str, Any] | None,
        actor: Actor,
        *,
        idempotency_key: str | None = None,
        limit: float | None = None,
    ) -> ToolResult | Awaitable[ToolResult]:
        """The one entry for a front door on an event loop; the gateway picks where the call
        runs. A read its store answers at once runs right here (``runs_on_loop``) and its
        result comes back as it is, with no await to pay; anything else is an awaitable of the
        result: another in-process read on a worker thread, abandoned at the tool's deadline;
        writes and sandboxed tools on a worker thread while ``invoke`` keeps their own timeout.
        ``limit`` is a door's configured cap on any request (the socket's request timeout):
        a call still running then is abandoned (and answered ``timeout``)."""
        tool = self.registry.get(name)
        arguments = args or {}
        if tool is not None and self.runs_on_loop(tool, arguments):
            return self.invoke(name, arguments, actor, idempotency_key=idempotency_key, inline=True)
        inline = tool is not None and self.runs_inline(tool)
        deadline = tool.definition.timeout_seconds if tool is not None and inline else None
        if limit is not None:
            deadline = limit if deadline is None else min(deadline, limit)
        work = partial(
            self.invoke, name, arguments, actor, idempotency_key=idempotency_key, inline=inline
        )
        return self._on_a_thread(name, actor, work, deadline)

    async def ainvoke(
        self,
        name: str,
        args: Mapping[str, Any] | None,
        actor: Actor,
        *,
        idempotency_key: str | None = None,
        limit: float | None = None,
    ) -> ToolResult:
        """``answer``, awaited."""
        found = self.answer(name, args, actor, idempotency_key=idempotency_key, limit=limit)
        return await found if inspect.isawaitable(found) else found

    async def _on_a_thread(
        self, name: str, actor: Actor, work: Callable[[], ToolResult], deadline: float | None
    ) -> ToolResult:
        import anyio.to_thread  # only the servers' event loops come here: not every CLI start

        if deadline is None:
            return await anyio.to_thread.run_sync(work)
        with anyio.move_on_after(deadline):
            return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        call = _Call(name, actor, new_trace_id(), new_span_id(), time.perf_counter() - deadline)
        return self._failed(call, Timeout(f"{name} did not finish within {deadline:g} s."))

    def decide(
        self, proposal_id: str, action: Action, actor: Actor, reason: str | None = None
    ) -> dict[str, Any]:
        """A person's decision on a proposal, for every front door: ``approve`` (the policy
        decides again; the proposal's view once executed), ``reject`` (its view) or ``undo``
        (the pending object of a new proposal restoring what it changed). A refusal or a
        failure raises its domain error; an approval's is also recorded on the proposal."""
        if self.approvals is None:
            raise Unsupported("Approvals are not available in this gateway.")
        if action == "approve":
            return self._approve(self.approvals, proposal_id, actor)
        if action == "reject":
            return self.approvals.reject(proposal_id, actor, reason)
        if action == "undo":
            return self._undo(self.approvals, proposal_id, actor)
        raise MethodNotFound(f"Unknown action '{action}': {', '.join(ACTIONS)}.")

    def _approve(self, approvals: Approvals, proposal_id: str, actor: Actor) -> dict[str, Any]:
        filed = approvals.awaiting(proposal_id, actor)
        trace_id = filed.trace_id or new_trace_id()  # proposals filed before traces were kept
        call = _Call(filed.tool, actor, trace_id, new_span_id(), time.perf_counter())
        tool = self.registry.get(filed.tool)
        if tool is None:
            raise self._raise(self._failed(call, MethodNotFound(f"Unknown tool '{call.name}'.")))
        try:
            call.args = args = tool.parse(filed.args)
            decision = self.policy.decide(
                tool, args, actor, self.context, origin=filed.origin, filed_as=filed.trace_id
            )
        except FruitctlError as exc:
            raise self._raise(self._failed(call, exc)) from exc
        if decision.verdict != "allow":
            approvals.hold(proposal_id, actor, decision)
            raise self._raise(self._blocked(call, decision))
        self._log.info("tool_call_started", **self._fields(call), proposal_id=proposal_id)
        try:
            view = approvals.approve(proposal_id, actor, decision)
        except FruitctlError as exc:
            raise self._raise(self._failed(call, exc)) from exc
        latency = self._elapsed(call)
        self._log.info("tool_call_completed", **self._fields(call), latency_ms=latency)
        self._record(call, "approved", None, latency)
        return view

    def _undo(self, approvals: Approvals, proposal_id: str, actor: Actor) -> dict[str, Any]:
        name, args = approvals.inverse_of(proposal_id, actor)
        result = self._file(name, args, actor, undo_of=proposal_id)
        if not result.success:
            raise self._raise(result)
        return dict(result.output)

    def _file(self, name: str, args: dict[str, Any], actor: Actor, undo_of: str) -> ToolResult:
        """A proposal filed by a person (an undo): judged by the policy like any call, never
        executed before it is approved."""
        call = _Call(name, actor, new_trace_id(), new_span_id(), time.perf_counter())
        tool = self.registry.get(name)
        if tool is None:
            return self._failed(call, MethodNotFound(f"Unknown tool '{name}'."))
        try:
            call.args = parsed = tool.parse(args)
            decision = self.policy.decide(tool, parsed, actor, self.context)
        except FruitctlError as exc:
            return self._failed(call, exc)
        if decision.verdict == "deny":
            return self._blocked(call, decision)
        return self._proposed(call, tool, parsed, None, undo_of=undo_of)

    def describe_tools(self, category: str | None = None) -> list[dict[str, Any]]:
        """Every tool's definition with its verdict per mode (what an agent's call gets):
        ``tools list`` on the CLI and ``GET /tools``."""
        rules = self.policy.governance
        return [
            {**d.model_dump(), "verdicts": rules.of(d.name).verdicts()}
            for d in self.registry.list_tools()
            if category is None or d.category == category
        ]

    def describe_tool(self, name: str) -> dict[str, Any]:
        """One tool: what it does, its input schema, its effective rules and verdicts."""
        found = self.registry.get(name)
        if found is None:
            known = ", ".join(sorted(self.registry.names()))
            raise NotFound(f"Unknown tool '{name}'. Tools: {known}.", tool=name)
        d = found.definition
        rules = self.policy.governance.of(name)
        return {
            "name": d.name,
            "title": d.title,
            "description": d.description,
            "category": d.category,
            "risk_level": d.risk_level,
            "input_schema": d.input_schema,
            "rules": rules.model_dump(exclude_defaults=True),
            "verdicts": rules.verdicts(),
        }

    @staticmethod
    def _raise(result: ToolResult) -> FruitctlError:
        return from_code(result.error_code, result.error or "", **result.error_details)

    @property
    def events(self) -> EventLog:
        """The structured event log, for front doors that log their own events beside calls."""
        return self._log

    def flush(self) -> None:
        """Write the buffered call records and events now."""
        self._recorder.flush()
        self._log.flush()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._recorder.close()
        self._log.close()

    # -- execution ---------------------------------------------------------------------------

    def run_tool(self, tool: Tool, args: BaseModel) -> Any:
        """Run a tool on a worker under its timeout, carrying the caller's context (actor,
        write tokens) into the worker. Raises the tool's error, or ``Timeout``."""
        timeout = tool.definition.timeout_seconds
        future = self._pool.submit(contextvars.copy_context().run, self._run, tool, args, timeout)
        try:
            return future.result(timeout=timeout)
        except FutureTimeout as exc:
            future.cancel()
            raise Timeout(f"{tool.name} did not finish within {timeout:g} s.") from exc

    @staticmethod
    def runs_inline(tool: Tool) -> bool:
        """Whether ``invoke(..., inline=True)`` runs this tool on the caller's thread: plain
        in-process reads do; writes and sandboxed tools take the pool and their own timeout."""
        return tool.child is None and tool.definition.category == "read_only"

    def runs_on_loop(self, tool: Tool, arguments: Mapping[str, Any]) -> bool:
        """Whether a front door may run this call on its event loop (``invoke(..., inline=True)``
        from the loop thread, no deadline): a plain read whose store, open already, answers
        these arguments at once (``Tool.at_once``, the store's own judgement). Anything else -
        an expression to evaluate, a mirror due for a sync, a store not opened yet, a file, the
        network - runs where a deadline can abandon it."""
        if tool.at_once is None or not self.runs_inline(tool):
            return False
        if not self.context.opened(tool.service):
            return False  # opening a store (a first sync, a permission prompt) takes a thread
        try:
            return tool.at_once(tool.parse(arguments), self.context)
        except FruitctlError:
            return False  # the call itself reports the problem, off the loop

    def _perform(
        self, call: _Call, tool: Tool, args: BaseModel, key: str | None, inline: bool
    ) -> Any:
        if tool.writes and self.approvals is not None:  # exactly-once, audited, undoable
            return self.approvals.execute_direct(
                tool, args, call.actor, key, trace_id=call.trace_id
            )
        if inline and self.runs_inline(tool):
            return tool.function(args, self.context)
        return self.run_tool(tool, args)

    def _proposed(
        self,
        call: _Call,
        tool: Tool,
        args: BaseModel,
        key: str | None,
        undo_of: str | None = None,
    ) -> ToolResult:
        """File the part of a write that can work; the rest is answered at once, in the
        partial-failure shape, and nothing is filed when no part can (the error itself)."""
        assert self.approvals is not None
        try:
            workable, failed = self._resolve(tool, args)
            pending = self.approvals.propose(
                tool, workable, call.actor, key, trace_id=call.trace_id, undo_of=undo_of
            )
        except FruitctlError as exc:
            return self._failed(call, exc)
        if failed:
            pending = {**pending, "failed": failed}
        latency = self._elapsed(call)
        self._log.info(
            "tool_call_proposed",
            **self._fields(call),
            proposal_id=pending["proposalId"],
            latency_ms=latency,
        )
        self._record(call, "proposed", "approval_required", latency)
        return ToolResult(
            tool_name=call.name,
            success=True,
            output=pending,
            latency_ms=latency,
            trace_id=call.trace_id,
            metadata={"pending": True},
        )

    def _resolve(self, tool: Tool, args: BaseModel) -> tuple[BaseModel, list[dict[str, Any]]]:
        """Fail fast: the arguments cut to the items whose targets resolve the way the direct
        call would resolve them, and the items that do not."""
        if tool.change is None or tool.change.resolve is None:
            return args, []
        plain = args.model_dump(mode="json", exclude_unset=True)
        workable, failed = tool.change.resolve(plain, self.context)
        return (tool.parse(workable) if failed else args), failed

    def _execute(
        self, call: _Call, tool: Tool, args: BaseModel, key: str | None, inline: bool = False
    ) -> ToolResult:
        self._log.info("tool_call_started", **self._fields(call), arguments=args)
        token = current_actor.set(call.actor)
        try:
            output = self._perform(call, tool, args, key, inline)
        except FruitctlError as exc:
            return self._failed(call, exc)
        except Exception as exc:  # a bug in a tool: report it, never its traceback
            self._log.error("tool_call_crashed", **self._fields(call), exception=type(exc).__name__)
            return self._failed(call, InternalError(f"{tool.name} failed unexpectedly."))
        finally:
            current_actor.reset(token)
        latency = self._elapsed(call)
        self._log.info("tool_call_completed", **self._fields(call), latency_ms=latency)
        self._record(call, "ok", None, latency)
        return ToolResult(
            tool_name=call.name,
            success=True,
            output=output,
            latency_ms=latency,
            trace_id=call.trace_id,
        )

    def _run(self, tool: Tool, args: BaseModel, timeout: float) -> Any:
        if tool.child is not None:  # sandboxed: the work runs in a limited child process
            payload = args.model_dump(mode="json")
            return self._run_child(tool.child, payload, timeout, tool.child_limits)
        return tool.function(args, self.context)

    # -- outcomes ----------------------------------------------------------------------------

    def _blocked(self, call: _Call, decision: Decision) -> ToolResult:
        latency = self._elapsed(call)
        self._log.warning(
            "tool_call_blocked",
            **self._fields(call),
            verdict=decision.verdict,
            reason=decision.reason,
            latency_ms=latency,
        )
        outcome = "proposed" if decision.verdict == "propose" else "blocked"
        self._record(call, outcome, decision.code, latency)
        return ToolResult(
            tool_name=call.name,
            success=False,
            error=decision.reason,
            error_code=decision.code or "internal_error",
            error_details=decision.details,
            latency_ms=latency,
            trace_id=call.trace_id,
        )

    def _failed(self, call: _Call, error: FruitctlError) -> ToolResult:
        tool = self.registry.get(call.name)
        refused_access = isinstance(error, PermissionDenied) and "status" in error.details
        if refused_access and tool is not None and tool.service:
            # One account may serve several tools (a CalDAV mirror holds reminders and
            # events): which of the person's data was refused is the tool's to say.
            error.details.setdefault("service", tool.service)
        latency = self._elapsed(call)
        self._log.warning(
            "tool_call_failed", **self._fields(call), error_code=error.code, latency_ms=latency
        )
        self._record(call, "failed", error.code, latency)
        return ToolResult(
            tool_name=call.name,
            success=False,
            error=error.message,
            error_code=error.code,
            error_details=error.details,
            latency_ms=latency,
            trace_id=call.trace_id,
            metadata={"retryable": error.retryable},
        )

    def _record(self, call: _Call, outcome: str, code: str | None, latency: float) -> None:
        self._recorder.record(
            CallRecord(
                at=time.time(),
                trace_id=call.trace_id,
                span_id=call.span_id,
                tool=call.name,
                actor=call.actor.label,
                actor_kind=call.actor.kind,
                outcome=outcome,
                error_code=code,
                latency_ms=latency,
            )
        )

    @staticmethod
    def _fields(call: _Call) -> dict[str, Any]:
        return {
            "trace_id": call.trace_id,
            "span_id": call.span_id,
            "tool_name": call.name,
            "actor": call.actor.label,
        }

    @staticmethod
    def _elapsed(call: _Call) -> float:
        return round((time.perf_counter() - call.started) * 1000, 3)
