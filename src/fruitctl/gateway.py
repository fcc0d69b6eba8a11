"""``Gateway.invoke(tool, args, actor)``: the one entry every front door uses for a call, and
``Gateway.decide(proposal, action, actor)`` the one it uses for a person's decision.

invoke: lookup -> argument validation -> the policy's judgement (``Policy.judge``) -> execution
under the tool's timeout (or, for a write that needs approval, its targets resolved and the
workable part filed as a proposal) -> ``ToolResult`` -> telemetry. Every failure comes back as
a result with a canonical error code; nothing raises out of ``invoke``. A read past its timeout
is abandoned (its thread finishes in the background) and the gateway answers ``timeout`` and
stays responsive.

A write is never answered "failed" while it may still land (``run_write``): its execution - the
tool and the proposal record of how it ended - runs on one worker. At the deadline, one not yet
started is cancelled (``timeout``: nothing changed); one already running is answered
``outcome_unknown`` (never retryable) and goes on: a write that had not reached its store stops
there (``domain.writes.Gate``), one that had runs to completion, and either way the worker
records the true ending on the proposal, where the caller looks it up.

decide: approving has the policy judge again, for the person, on the stored arguments of the
agent's write (mode, the agent's allowlists and rate limit); a denial keeps the proposal pending
with the reason. An allowed approval executes exactly once and is recorded as a call under the
proposal's trace id (``approved`` or ``failed``), like any other call.
"""

from __future__ import annotations

import contextvars
import inspect
import time
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel

from fruitctl.calls import Call, Outcomes
from fruitctl.domain.errors import (
    FruitctlError,
    MethodNotFound,
    NotFound,
    OutcomeUnknown,
    Timeout,
    Unsupported,
)
from fruitctl.domain.writes import Gate, gated
from fruitctl.policy.decision import Actor
from fruitctl.policy.engine import Policy
from fruitctl.telemetry import CallRecorder, EventLog, new_trace_id
from fruitctl.tools.context import ToolContext, current_actor
from fruitctl.tools.model import Tool, ToolResult
from fruitctl.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from fruitctl.approvals.engine import Approvals

ChildRunner = Callable[[str, dict[str, Any], float, Any], Any]
T = TypeVar("T")
Action = Literal["approve", "reject", "undo"]
ACTIONS: tuple[Action, ...] = ("approve", "reject", "undo")


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
        self._outcomes = Outcomes(log, recorder, registry)
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
        limit: float | None = None,
    ) -> ToolResult:
        """Run one call through lookup, validation, policy and execution; failures are results.

        ``inline``: the caller is a thread that ``answer`` abandons at the call's deadline (or
        the loop itself, for a read its store answers at once). A plain in-process read then
        runs right here instead of hopping to the tool pool, the hop being most of what a fast
        read costs; writes and sandboxed tools always take the pool and their own timeout.
        ``limit``: a door's cap on the request, which a write's deadline keeps under."""
        call = Call(name, actor, trace_id or new_trace_id())
        tool = self.registry.get(name)
        if tool is None:
            return self._outcomes.refused(call, MethodNotFound(f"Unknown tool '{name}'."))
        try:
            parsed = tool.parse(args)
        except FruitctlError as exc:
            return self._outcomes.refused(call, exc)
        return self._judge_and_act(call, tool, parsed, idempotency_key, inline, limit)

    def _judge_and_act(
        self,
        call: Call,
        tool: Tool,
        parsed: BaseModel,
        key: str | None,
        inline: bool,
        limit: float | None = None,
    ) -> ToolResult:
        """The policy's verdict on validated arguments, and what follows from it."""
        call.args = parsed
        try:
            decision = self.policy.judge(tool, parsed, call.actor, self.context)
        except FruitctlError as exc:
            return self._outcomes.refused(call, exc)
        except Exception as exc:  # a bug in a rule: a recorded internal error, never a raise
            return self._outcomes.crashed(call, exc)
        if decision.verdict == "propose" and self.approvals is not None:
            return self._proposed(call, tool, parsed, key)
        if decision.verdict != "allow":
            return self._outcomes.blocked(call, decision)
        refused = self._cannot_work(call, tool, parsed)
        if refused is not None:
            return refused
        return self._execute(call, tool, parsed, key, inline, limit)

    def _cannot_work(self, call: Call, tool: Tool, parsed: BaseModel) -> ToolResult | None:
        """A write allowed at once fails fast as a proposal does: input none of which can work
        (an empty title, a list that does not exist) is answered before anything is recorded
        on the person's data - no proposal, no audit entry. The tool still answers the items
        that fail among others, in its partial-failure shape."""
        if not tool.writes or self.approvals is None:
            return None
        try:
            self._resolve(tool, parsed)
        except FruitctlError as exc:
            return self._outcomes.refused(call, exc)
        except Exception as exc:  # a bug in a precheck: recorded, never raised
            return self._outcomes.crashed(call, exc)
        return None

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
        a read still running then is abandoned (and answered ``timeout``); a write keeps under
        it instead (``run_write``), since abandoning it would answer before it ended."""
        tool = self.registry.get(name)
        arguments = args or {}
        if tool is not None and tool.at_once is not None:
            call = Call(name, actor)  # timed from here, like invoke's
            parsed = self._at_once(tool, arguments)
            if parsed is not None:  # validated once, here
                return self._judge_and_act(call, tool, parsed, idempotency_key, inline=True)
        inline = tool is not None and self.runs_inline(tool)
        deadline = tool.definition.timeout_seconds if tool is not None and inline else None
        if limit is not None:
            deadline = limit if deadline is None else min(deadline, limit)
        if tool is not None and tool.writes:
            deadline = None  # never abandoned: the write answers at its own deadline
        work = partial(
            self.invoke,
            name,
            arguments,
            actor,
            idempotency_key=idempotency_key,
            inline=inline,
            limit=limit,
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
        call = Call(name, actor, started=time.perf_counter() - deadline)
        return self._outcomes.failed(call, Timeout(f"{name} did not finish within {deadline:g} s."))

    def decide(
        self, proposal_id: str, action: Action, actor: Actor, reason: str | None = None
    ) -> dict[str, Any]:
        """A person's decision on a proposal, for every front door: ``approve`` (the policy
        judges again; the proposal's view once executed), ``reject`` (its view) or ``undo``
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
        call = Call(filed.tool, actor, trace_id)
        tool = self.registry.get(filed.tool)
        if tool is None:
            unknown = MethodNotFound(f"Unknown tool '{call.name}'.")
            raise self._raise(self._outcomes.failed(call, unknown))
        try:
            call.args = args = tool.parse(filed.args)
            decision = self.policy.judge(
                tool, args, actor, self.context, origin=filed.origin, filed_as=filed.trace_id
            )
        except FruitctlError as exc:
            raise self._raise(self._outcomes.failed(call, exc)) from exc
        if decision.verdict != "allow":
            approvals.hold(proposal_id, actor, decision)
            raise self._raise(self._outcomes.blocked(call, decision))
        self._outcomes.started(call, proposal_id=proposal_id)
        try:
            view = approvals.approve(proposal_id, actor, decision)
        except FruitctlError as exc:
            raise self._raise(self._outcomes.failed(call, exc)) from exc
        self._outcomes.done(call, view, "approved")
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
        call = Call(name, actor)
        tool = self.registry.get(name)
        if tool is None:
            return self._outcomes.failed(call, MethodNotFound(f"Unknown tool '{name}'."))
        try:
            call.args = parsed = tool.parse(args)
            decision = self.policy.judge(tool, parsed, actor, self.context)
        except FruitctlError as exc:
            return self._outcomes.failed(call, exc)
        if decision.verdict == "deny":
            return self._outcomes.blocked(call, decision)
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
        assert result.failure is not None
        return result.failure

    @property
    def events(self) -> EventLog:
        """The structured event log, for front doors that log their own events beside calls."""
        return self._outcomes.log

    def flush(self) -> None:
        """Write the buffered call records and events now."""
        self._outcomes.flush()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._outcomes.close()

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

    def run_here(self, tool: Tool, args: BaseModel) -> Any:
        """Run a tool on this thread (a sandboxed one in its child, under its timeout): how a
        write's execution, already on a worker under ``run_write``, runs its tool."""
        return self._run(tool, args, tool.definition.timeout_seconds)

    def run_write(
        self,
        tool: Tool,
        execution: Callable[[], T],
        proposal_id: str,
        limit: float | None = None,
    ) -> T:
        """Run a write's whole execution on a worker under the tool's timeout (or ``limit``, if
        shorter). Past it: not started, it is cancelled - ``Timeout``, nothing changed; started,
        ``OutcomeUnknown`` - the worker goes on, its write stopped at the gate if it had not
        reached its store yet, and records on the proposal how it ended."""
        timeout = tool.definition.timeout_seconds
        deadline = timeout if limit is None else min(timeout, limit)
        gate = Gate()
        context = contextvars.copy_context()
        future = self._pool.submit(context.run, _through, gate, execution)
        try:
            return future.result(timeout=deadline)
        except FutureTimeout as exc:
            if future.cancel():
                raise Timeout(
                    f"{tool.name} could not start within {deadline:g} s; nothing was changed."
                ) from exc
            gate.close()
            raise OutcomeUnknown(
                f"{tool.name} is still running after {deadline:g} s and may yet change what it "
                f"was asked to, so do not simply retry: proposal {proposal_id} records how it "
                f"ends (get_proposal, or `fruitctl proposals show {proposal_id}`).",
                proposalId=proposal_id,
            ) from exc

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
        return self._at_once(tool, arguments) is not None

    def _at_once(self, tool: Tool, arguments: Mapping[str, Any]) -> BaseModel | None:
        """The validated arguments of a call that may run on the loop (``runs_on_loop``), else
        None (also for arguments that are not valid: the call reports that, off the loop)."""
        if tool.at_once is None or not self.runs_inline(tool):
            return None
        if not self.context.opened(tool.service):
            return None  # opening a store (a first sync, a permission prompt) takes a thread
        try:
            parsed = tool.parse(arguments)
            return parsed if tool.at_once(parsed, self.context) else None
        except FruitctlError:
            return None

    def _perform(
        self,
        call: Call,
        tool: Tool,
        args: BaseModel,
        key: str | None,
        inline: bool,
        limit: float | None = None,
    ) -> Any:
        if tool.writes and self.approvals is not None:  # exactly-once, audited, undoable
            return self.approvals.execute_direct(
                tool, args, call.actor, key, trace_id=call.trace_id, limit=limit
            )
        if inline and self.runs_inline(tool):
            return tool.function(args, self.context)
        return self.run_tool(tool, args)

    def _proposed(
        self,
        call: Call,
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
        except FruitctlError as exc:  # nothing can work: nothing is filed
            return self._outcomes.refused(call, exc)
        except Exception as exc:
            return self._outcomes.crashed(call, exc)
        try:
            pending = self.approvals.propose(
                tool, workable, call.actor, key, trace_id=call.trace_id, undo_of=undo_of
            )
        except FruitctlError as exc:
            return self._outcomes.failed(call, exc)
        except Exception as exc:  # a bug filing it (a before-snapshot, say): recorded, not raised
            return self._outcomes.crashed(call, exc)
        if failed:
            pending = {**pending, "failed": failed}
        return self._outcomes.proposed(call, pending)

    def _resolve(self, tool: Tool, args: BaseModel) -> tuple[BaseModel, list[dict[str, Any]]]:
        """Fail fast: the arguments cut to the items whose targets resolve the way the direct
        call would resolve them, and the items that do not."""
        if tool.change is None or tool.change.resolve is None:
            return args, []
        plain = args.model_dump(mode="json", exclude_unset=True)
        workable, failed = tool.change.resolve(plain, self.context)
        return (tool.parse(workable) if failed else args), failed

    def _execute(
        self,
        call: Call,
        tool: Tool,
        args: BaseModel,
        key: str | None,
        inline: bool = False,
        limit: float | None = None,
    ) -> ToolResult:
        self._outcomes.started(call, arguments=args)
        token = current_actor.set(call.actor)
        try:
            output = self._perform(call, tool, args, key, inline, limit)
        except FruitctlError as exc:
            if not tool.writes:  # a read changed nothing: a query it cannot take is a mistake
                return self._outcomes.refused(call, exc)
            return self._outcomes.failed(call, exc)
        except Exception as exc:  # a bug in a tool: report it, never its traceback
            return self._outcomes.crashed(call, exc)
        finally:
            current_actor.reset(token)
        return self._outcomes.done(call, output)

    def _run(self, tool: Tool, args: BaseModel, timeout: float) -> Any:
        if tool.child is not None:  # sandboxed: the work runs in a limited child process
            payload = args.model_dump(mode="json")
            return self._run_child(tool.child, payload, timeout, tool.child_limits)
        return tool.function(args, self.context)


def _through(gate: Gate, execution: Callable[[], T]) -> T:
    with gated(gate):
        return execution()
