"""One call through the gateway, and how it ends - told three ways at once: the ``ToolResult`` a
front door answers, an event in the structured log, and a record in the call metrics.

``Outcomes`` is the gateway's one place for that, so every ending (done, proposed, blocked by
the policy, rejected, failed) carries the same trace ids, latency and fields everywhere.

A call whose input is refused before anything ran (a date that is no date, an empty title, a
list that does not exist) is ``rejected``: the caller's mistake, answered with its error like a
failure, but no proposal, no audit entry and no part of the error rate - history is what was
tried on the person's data, not what was mistyped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import FruitctlError, InternalError, PermissionDenied
from fruitctl.policy.decision import Decision
from fruitctl.telemetry import CallRecord, CallRecorder, EventLog, new_span_id, new_trace_id
from fruitctl.tools.model import ToolResult
from fruitctl.tools.registry import ToolRegistry

MISTAKES = frozenset({"invalid_params", "not_found", "method_not_found"})
"""The codes that, raised before a call ran, mean its input was wrong (``Outcomes.refused``);
any other early error (no access, a backend down) is a failure of the call."""


@dataclass
class Call:
    name: str
    actor: Actor
    trace_id: str = field(default_factory=new_trace_id)
    span_id: str = field(default_factory=new_span_id)
    started: float = field(default_factory=time.perf_counter)
    args: Any = None
    retries: int = 0
    """How many times the gateway ran it again after a retryable failure (at most once)."""

    @property
    def fields(self) -> dict[str, Any]:
        """What every event of this call carries."""
        return {
            "trace_id": self.trace_id,
            "span_id": self.span_id,
            "tool_name": self.name,
            "actor": self.actor.label,
        }

    @property
    def elapsed_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 3)


class Outcomes:
    def __init__(self, log: EventLog, recorder: CallRecorder, registry: ToolRegistry) -> None:
        self.log = log
        self._recorder = recorder
        self._registry = registry

    def started(self, call: Call, **extra: Any) -> None:
        self.log.info("tool_call_started", **call.fields, **extra)

    def retried(self, call: Call, error: FruitctlError) -> None:
        """A read failed for a reason that may pass (``Gateway._retries``): it runs once more."""
        self.log.warning(
            "tool_call_retried", **call.fields, error_code=error.code, latency_ms=call.elapsed_ms
        )

    def done(self, call: Call, output: Any, outcome: str = "ok") -> ToolResult:
        """It ran (``approved``: a person's approval ran it)."""
        latency = call.elapsed_ms
        self.log.info("tool_call_completed", **call.fields, latency_ms=latency)
        self._record(call, outcome, None, latency)
        return ToolResult(
            tool_name=call.name,
            success=True,
            output=output,
            latency_ms=latency,
            trace_id=call.trace_id,
            metadata={"retries": call.retries} if call.retries else {},
        )

    def proposed(self, call: Call, pending: dict[str, Any]) -> ToolResult:
        """It was filed for a person to approve: the agent's answer is the pending object."""
        latency = call.elapsed_ms
        self.log.info(
            "tool_call_proposed",
            **call.fields,
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

    def blocked(self, call: Call, decision: Decision) -> ToolResult:
        """The policy refused it (or would only file it, where nothing can be filed)."""
        latency = call.elapsed_ms
        self.log.warning(
            "tool_call_blocked",
            **call.fields,
            verdict=decision.verdict,
            reason=decision.reason,
            latency_ms=latency,
        )
        outcome = "proposed" if decision.verdict == "propose" else "blocked"
        self._record(call, outcome, decision.code, latency)
        return ToolResult(
            tool_name=call.name,
            success=False,
            failure=decision.error or InternalError(decision.reason),
            latency_ms=latency,
            trace_id=call.trace_id,
        )

    def crashed(self, call: Call, exc: Exception) -> ToolResult:
        """A bug in a tool: its type goes to the log, never its traceback to the caller."""
        self.log.error("tool_call_crashed", **call.fields, exception=type(exc).__name__)
        return self.failed(call, InternalError(f"{call.name} failed unexpectedly."))

    def refused(self, call: Call, error: FruitctlError) -> ToolResult:
        """An error raised before anything ran: ``rejected`` when it is the caller's input
        (``MISTAKES``), else a failure like any other."""
        return self.failed(call, error, "rejected" if error.code in MISTAKES else "failed")

    noted: Callable[[FruitctlError], None] | None = None
    """Told of every failure (the gateway's health: a store's "disk full" degrades the mode)."""

    def failed(self, call: Call, error: FruitctlError, outcome: str = "failed") -> ToolResult:
        if self.noted is not None:
            self.noted(error)
        tool = self._registry.get(call.name)
        refused_access = isinstance(error, PermissionDenied) and "status" in error.details
        if refused_access and tool is not None and tool.service:
            # One account may serve several tools (a CalDAV mirror holds reminders and
            # events): which of the person's data was refused is the tool's to say.
            error.details.setdefault("service", tool.service)
        latency = call.elapsed_ms
        self.log.warning(
            f"tool_call_{outcome}", **call.fields, error_code=error.code, latency_ms=latency
        )
        self._record(call, outcome, error.code, latency)
        return ToolResult(
            tool_name=call.name,
            success=False,
            failure=error,
            latency_ms=latency,
            trace_id=call.trace_id,
            metadata={"retryable": error.retryable}
            | ({"retries": call.retries} if call.retries else {}),
        )

    def flush(self) -> None:
        self._recorder.flush()
        self.log.flush()

    def close(self) -> None:
        self._recorder.close()
        self.log.close()

    def _record(self, call: Call, outcome: str, code: str | None, latency: float) -> None:
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
                retries=call.retries,
            )
        )
