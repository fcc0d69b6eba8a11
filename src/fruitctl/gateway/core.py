"""The gateway: every call and every person's decision, through one pipeline.

    lookup -> parse -> judge -> file or run -> record

``invoke`` (a caller's own thread), ``ainvoke`` (a door on an event loop) and ``answer_now``
(the same door, for a read its store answers at once) enter it for an agent's or a person's
call; ``decide`` enters it for a person's approval (judged again, on the stored arguments, as
the agent's write), undo (filed as a new proposal) and rejection. ``placement`` says where each
call runs and until when; ``calls.Outcomes`` records how each ended. Every failure is a result
carrying its error; nothing raises out of an entry but ``decide``, whose doors answer errors.

The approval engine files, claims, verifies and finishes proposals; the gateway runs their
tools (``_execute``): the engine never calls back up.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from fruitctl.calls import Call, Outcomes
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import (
    FruitctlError,
    InvalidParams,
    MethodNotFound,
    NotFound,
    OutcomeUnknown,
    RateLimited,
    Timeout,
    Unsupported,
)
from fruitctl.domain.writes import writing
from fruitctl.gateway.placement import Entry, Placement, place
from fruitctl.gateway.runner import ChildRunner, Runner
from fruitctl.policy.decision import Decision
from fruitctl.policy.engine import Policy, reached
from fruitctl.telemetry import CallRecorder, EventLog, new_trace_id
from fruitctl.tools.context import ToolContext, current_actor
from fruitctl.tools.model import Tool, ToolResult
from fruitctl.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from fruitctl.approvals.allowance import Allowance
    from fruitctl.approvals.engine import Approvals
    from fruitctl.approvals.store import Proposal
    from fruitctl.policy.health import Health

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
        self._runner = Runner(context, run_child, workers)
        self._outcomes.noted = self._noted

    approvals: Approvals | None = None
    """Set by the composition root; without it a write that needs approval is refused."""
    health: Health | None = None
    """Set by the composition root: looked at before a write is judged (cheap: at most once per
    its cadence), told of every failure - a store's "disk full" makes the mode DEGRADED."""

    # -- entries -------------------------------------------------------------------------------

    def invoke(
        self,
        name: str,
        args: Mapping[str, Any] | None,
        actor: Actor,
        *,
        trace_id: str | None = None,
        idempotency_key: str | None = None,
        limit: float | None = None,
    ) -> ToolResult:
        """One call on the caller's own thread, which nobody abandons: a read runs on a worker
        under its deadline, a write as every write does (``placement``). ``limit``: a door's
        cap on the request, when shorter than the tool's own timeout."""
        call = Call(name, actor, trace_id or new_trace_id())
        return self._call(call, args, "caller", idempotency_key, limit)

    def answer_now(
        self,
        name: str,
        args: Mapping[str, Any] | None,
        actor: Actor,
        *,
        idempotency_key: str | None = None,
    ) -> ToolResult | None:
        """The answer of a read its store gives at once (``Tool.at_once``: a few bounded reads
        in this process), run right here on the door's event loop - no thread hop, no await;
        None for any other call, which the door then awaits (``ainvoke_off_loop``)."""
        tool = self.registry.get(name)
        if tool is None or not _may_run_on_loop(tool):
            return None
        call = Call(name, actor)  # timed from here, like invoke's
        parsed = self._at_once(tool, args or {})
        if parsed is None:
            return None
        return self._judged(call, tool, parsed, idempotency_key, place(tool, "loop"))

    async def ainvoke(
        self,
        name: str,
        args: Mapping[str, Any] | None,
        actor: Actor,
        *,
        idempotency_key: str | None = None,
        limit: float | None = None,
    ) -> ToolResult:
        """One call from a door on an event loop: on the loop when the store answers at once
        (``answer_now``), else on a thread (``ainvoke_off_loop``)."""
        now = self.answer_now(name, args, actor, idempotency_key=idempotency_key)
        if now is not None:
            return now
        return await self.ainvoke_off_loop(
            name, args, actor, idempotency_key=idempotency_key, limit=limit
        )

    async def ainvoke_off_loop(
        self,
        name: str,
        args: Mapping[str, Any] | None,
        actor: Actor,
        *,
        idempotency_key: str | None = None,
        limit: float | None = None,
    ) -> ToolResult:
        """One call on a thread of the loop's, which lets a read in this process go at its
        deadline (answered ``timeout``); a write, or a sandboxed read, is waited for - each
        answers at its own deadline (``placement``)."""
        import anyio.to_thread  # only the servers' event loops come here: not every CLI start

        tool = self.registry.get(name)
        work = partial(self._call, Call(name, actor), args, "thread", idempotency_key, limit)
        placement = place(tool, "thread", limit) if tool is not None else None
        if placement is None or not placement.abandoned:
            return await anyio.to_thread.run_sync(work)
        with anyio.move_on_after(placement.seconds):
            return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        seconds = placement.seconds
        late = Call(name, actor, started=time.perf_counter() - seconds)
        return self._outcomes.failed(late, Timeout.after(name, seconds))

    def decide(
        self,
        proposal_id: str,
        action: Action,
        actor: Actor,
        reason: str | None = None,
        allow: Allowance | None = None,
    ) -> dict[str, Any]:
        """A person's decision on a proposal, for every front door: ``approve`` (the policy
        judges again; the proposal's view once executed - with ``allow``, also the standing
        grant given, as ``grant``), ``reject`` (its view) or ``undo`` (the pending object of a
        new proposal restoring what it changed). A refusal or a failure raises its domain
        error; an approval's is also recorded on the proposal."""
        approvals = self.approval_engine()
        if allow is not None and action != "approve":
            raise InvalidParams.grant_needs_approval()
        if action == "approve":
            return self._approve(approvals, proposal_id, actor, allow)
        if action == "reject":
            return approvals.reject(proposal_id, actor, reason)
        if action == "undo":
            return self._undo(approvals, proposal_id, actor)
        raise MethodNotFound(f"Unknown action '{action}': {', '.join(ACTIONS)}.")

    def approval_engine(self) -> Approvals:
        """The proposals, for a door that reads or decides them; refused where there are none."""
        if self.approvals is None:
            raise Unsupported.no_approvals()
        return self.approvals

    def recover(self) -> list[str]:
        """Finish what a killed process left executing (its recorded writes replay, the rest
        run - never twice); the ids finished. One it had not verified is pending again."""
        if self.approvals is None:
            return []
        finished = []
        for stuck in self.approvals.recoverable():
            tool = self.registry.get(stuck.tool)
            if tool is None:
                self.approvals.failed(stuck, MethodNotFound.tool(stuck.tool))
                continue
            # On this thread, at start-up: how it ends is recorded on the proposal.
            with contextlib.suppress(FruitctlError):
                self._execution(stuck, tool, place(tool, "caller"))()
            finished.append(stuck.id)
        return finished

    def _noted(self, error: FruitctlError) -> None:
        if self.health is not None:
            self.health.noted(error)

    # -- the pipeline ----------------------------------------------------------------------------

    def _call(
        self,
        call: Call,
        args: Mapping[str, Any] | None,
        entry: Entry,
        key: str | None,
        limit: float | None,
    ) -> ToolResult:
        try:
            tool, parsed = self._parsed(call, args)
        except FruitctlError as exc:
            return self._outcomes.refused(call, exc)
        return self._judged(call, tool, parsed, key, place(tool, entry, limit))

    def _parsed(self, call: Call, args: Mapping[str, Any] | None) -> tuple[Tool, BaseModel]:
        """Lookup and parse: the tool, and its validated arguments (kept on the call)."""
        tool = self.registry.get(call.name)
        if tool is None:
            raise MethodNotFound.tool(call.name)
        call.args = tool.parse(args)
        return tool, call.args

    def _judge(self, call: Call, tool: Tool, parsed: BaseModel, **whose: Any) -> Decision:
        """The policy's verdict; a rule's own error is the call's."""
        try:
            return self.policy.judge(tool, parsed, call.actor, self.context, **whose)
        except FruitctlError:
            raise
        except Exception as exc:  # a bug in a rule: an internal error, never a raise
            raise _Crashed(exc) from exc

    def _judged(
        self, call: Call, tool: Tool, parsed: BaseModel, key: str | None, placement: Placement
    ) -> ToolResult:
        """Judge, then file or run: a proposal, a refusal, or the call's answer."""
        if tool.writes and self.health is not None:
            self.health.check()  # the mode the write is judged in reflects the machine now
        try:
            decision = self._judge(call, tool, parsed)
        except FruitctlError as exc:
            return self._outcomes.refused(call, exc)
        except _Crashed as crash:
            return self._outcomes.crashed(call, crash.cause)
        if decision.verdict == "propose" and self.approvals is not None:
            return self._file(call, tool, parsed, key)
        if decision.verdict != "allow":
            return self._outcomes.blocked(call, decision)
        if tool.writes and self.approvals is not None:
            return self._write(call, tool, parsed, key, placement, decision.grant)
        return self._read(call, tool, parsed, placement)

    def _read(self, call: Call, tool: Tool, parsed: BaseModel, placement: Placement) -> ToolResult:
        self._outcomes.started(call, arguments=parsed)
        with _acting(call.actor):
            while True:
                try:
                    output = self._runner.read(tool, parsed, placement)
                except FruitctlError as exc:  # a read changed nothing: a query it cannot take
                    if self._retries(call, tool, exc, placement):
                        call.retries += 1
                        self._outcomes.retried(call, exc)
                        continue
                    return self._outcomes.refused(call, exc)
                except Exception as exc:  # a bug in a tool: report it, never its traceback
                    return self._outcomes.crashed(call, exc)
                return self._outcomes.done(call, output)

    @staticmethod
    def _retries(call: Call, tool: Tool, exc: FruitctlError, placement: Placement) -> bool:
        """Whether a read that failed runs once more: only a failure marked retryable (a
        backend that timed out or dropped the connection, a store busy for a moment), only a
        tool that changes nothing, only once, and only while its deadline leaves room - a call
        already past it (the gateway's own ``Timeout``) is answered, not run twice as long. A
        write is never retried here: one that may have landed is settled by its proposal."""
        if call.retries or not exc.retryable or isinstance(exc, RateLimited | OutcomeUnknown):
            return False
        if tool.writes or not tool.definition.annotations.readOnlyHint:
            return False
        return (time.perf_counter() - call.started) < placement.seconds

    def _write(
        self,
        call: Call,
        tool: Tool,
        parsed: BaseModel,
        key: str | None,
        placement: Placement,
        grant: str | None = None,
    ) -> ToolResult:
        """A write allowed at once: exactly-once, audited and undoable, as an approved proposal
        (``grant``: the standing grant that allowed it, in its record). Input none of which can
        work (an empty title, a list that does not exist) is refused first, as a proposal would
        be - no audit entry; the tool still answers the items that fail among others, in its
        partial-failure shape."""
        approvals = self.approvals
        assert approvals is not None
        try:
            self._workable(tool, parsed)
        except FruitctlError as exc:
            return self._outcomes.refused(call, exc)
        except Exception as exc:  # a bug in a precheck: recorded, never raised
            return self._outcomes.crashed(call, exc)
        self._outcomes.started(call, arguments=parsed)
        with _acting(call.actor):
            try:
                filed = approvals.file_direct(
                    tool, parsed, call.actor, key, trace_id=call.trace_id, grant=grant
                )
                if approvals.runs_here(filed):
                    filed = self._execute(filed, tool, placement)
                output = approvals.outcome(filed)
            except FruitctlError as exc:
                return self._outcomes.failed(call, exc)
            except Exception as exc:
                return self._outcomes.crashed(call, exc)
        return self._outcomes.done(call, output)

    def _file(
        self,
        call: Call,
        tool: Tool,
        parsed: BaseModel,
        key: str | None,
        undo_of: str | None = None,
    ) -> ToolResult:
        """File the part of a write that can work; the rest is answered at once, in the
        partial-failure shape, and nothing is filed when no part can (the error itself)."""
        assert self.approvals is not None
        try:
            workable, failed = self._workable(tool, parsed)
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

    def _workable(self, tool: Tool, args: BaseModel) -> tuple[BaseModel, list[dict[str, Any]]]:
        """Fail fast: the arguments cut to the items whose targets resolve the way the direct
        call would resolve them, and the items that do not."""
        if tool.change is None or tool.change.resolve is None:
            return args, []
        plain = args.model_dump(mode="json", exclude_unset=True)
        workable, failed = tool.change.resolve(plain, self.context)
        return (tool.parse(workable) if failed else args), failed

    # -- a person's decisions ---------------------------------------------------------------------

    def _approve(
        self, approvals: Approvals, proposal_id: str, actor: Actor, allow: Allowance | None
    ) -> dict[str, Any]:
        """The agent's write, judged again for the person on its stored arguments, then taken,
        verified and run - a call recorded under the proposal's trace. ``allow``: the standing
        grant to give with it, on where it reaches (read before it runs: a move's source)."""
        filed = approvals.awaiting(proposal_id, actor)
        if allow is not None and filed.actor_kind != "agent":
            raise InvalidParams.grant_for_person(proposal_id)
        call = Call(filed.tool, actor, filed.trace_id or new_trace_id())
        try:
            tool, parsed = self._parsed(call, filed.args)
            decision = self._judge(call, tool, parsed, origin=filed.origin, filed_as=filed.trace_id)
        except FruitctlError as exc:
            raise self._raise(self._outcomes.failed(call, exc)) from exc
        except _Crashed as crash:
            raise self._raise(self._outcomes.crashed(call, crash.cause)) from crash
        if decision.verdict != "allow":
            approvals.hold(proposal_id, actor, decision)
            raise self._raise(self._outcomes.blocked(call, decision))
        self._outcomes.started(call, proposal_id=proposal_id)
        try:
            reach = reached(tool, parsed, self.context) if allow is not None else None
            taken = approvals.take(proposal_id, actor, decision)
            view = approvals.settled(self._execute(taken, tool, place(tool, "caller")))
        except FruitctlError as exc:
            raise self._raise(self._outcomes.failed(call, exc)) from exc
        self._outcomes.done(call, view, "approved")
        if allow is not None:
            view = {**view, "grant": approvals.grant(taken, actor, allow, reach)}
        return view

    def _undo(self, approvals: Approvals, proposal_id: str, actor: Actor) -> dict[str, Any]:
        """A proposal restoring what an executed one changed, filed by the person: judged by
        the policy like any call, never run before it is approved."""
        name, args = approvals.inverse_of(proposal_id, actor)
        call = Call(name, actor)
        try:
            tool, parsed = self._parsed(call, args)
            decision = self._judge(call, tool, parsed)
        except FruitctlError as exc:
            raise self._raise(self._outcomes.failed(call, exc)) from exc
        except _Crashed as crash:
            raise self._raise(self._outcomes.crashed(call, crash.cause)) from crash
        if decision.verdict == "deny":
            raise self._raise(self._outcomes.blocked(call, decision))
        result = self._file(call, tool, parsed, None, undo_of=proposal_id)
        return dict(result.unwrapped())

    # -- running a proposal ------------------------------------------------------------------------

    def _execute(self, approved: Proposal, tool: Tool, placement: Placement) -> Proposal:
        """Run a taken proposal's tool on a worker under its deadline (``Runner.write``), the
        engine recording how it ended. Past the deadline while it runs, the audit says its
        outcome is unknown and the worker records its true end; one that never started ends
        FAILED - nothing ran, nothing will."""
        approvals = self.approvals
        assert approvals is not None
        execution = self._execution(approved, tool, placement)
        try:
            return self._runner.write(tool, execution, approved.id, placement)
        except OutcomeUnknown as exc:
            approvals.unknown(approved, exc)
            raise
        except Timeout as exc:  # a no-op if the execution ran and ended itself
            approvals.failed(approved, exc)
            raise

    def _execution(
        self, approved: Proposal, tool: Tool, placement: Placement
    ) -> Callable[[], Proposal]:
        """The tool run under the proposal's write tokens (exactly once), and its record."""
        approvals = self.approvals
        assert approvals is not None

        def execution() -> Proposal:
            try:
                with writing(approved.id):
                    output = self._runner.here(tool, tool.parse(approved.args), placement)
            except OutcomeUnknown:  # it may have landed: stays APPROVED (noted by _execute)
                raise
            except FruitctlError as exc:
                approvals.failed(approved, exc)
                raise
            return approvals.finished(approved, output)

        return execution

    def _at_once(self, tool: Tool, arguments: Mapping[str, Any]) -> BaseModel | None:
        """The validated arguments of a read its store answers at once, else None (also for
        arguments that are not valid: the call reports that, off the loop)."""
        assert tool.at_once is not None
        if not self.context.opened(tool.service):
            return None  # opening a store (a first sync, a permission prompt) takes a thread
        try:
            parsed = tool.parse(arguments)
            return parsed if tool.at_once(parsed, self.context) else None
        except FruitctlError:
            return None

    def runs_on_loop(self, tool: Tool, arguments: Mapping[str, Any]) -> bool:
        """Whether ``answer_now`` answers this call on the loop."""
        return _may_run_on_loop(tool) and self._at_once(tool, arguments) is not None

    # -- describing --------------------------------------------------------------------------------

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
        self._runner.close()
        self._outcomes.close()


def _may_run_on_loop(tool: Tool) -> bool:
    """A read in this process whose store may say it answers at once (``Tool.at_once``)."""
    return tool.at_once is not None and not tool.writes and tool.child is None


class _Crashed(Exception):
    """A bug in a policy rule, carried to where the call records it."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


class _acting:
    """``current_actor`` set for the tool (its writes' audit, its allowlist checks)."""

    def __init__(self, actor: Actor) -> None:
        self._actor = actor

    def __enter__(self) -> None:
        self._token = current_actor.set(self._actor)

    def __exit__(self, *exc: object) -> None:
        current_actor.reset(self._token)
