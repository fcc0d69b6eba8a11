"""The gateway's hands: run a tool where its ``Placement`` says, under its deadline.

``read`` runs a read on this thread, in its child process, or on a worker it abandons at the
deadline. ``write`` runs a write's whole execution - the tool and the proposal's record of how
it ended - on a worker behind a ``domain.writes.Gate``: at the deadline one not yet started is
cancelled (``Timeout``: nothing changed); one already running is answered ``OutcomeUnknown``
(never retryable) and goes on: a write that had not reached its store stops at the gate, one
that had runs to completion, and either way the worker records the true ending.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

from pydantic import BaseModel

from fruitctl.domain.errors import OutcomeUnknown, Timeout
from fruitctl.domain.writes import Gate, gated
from fruitctl.gateway.placement import Placement
from fruitctl.tools.context import ToolContext
from fruitctl.tools.model import Tool

ChildRunner = Callable[[str, dict[str, Any], float, Any], Any]
"""Runs ``module:function`` in a sandboxed child: (target, arguments, seconds, limits)."""
T = TypeVar("T")


class Runner:
    def __init__(self, context: ToolContext, run_child: ChildRunner, workers: int = 8) -> None:
        self._context = context
        self._run_child = run_child
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fruitctl-tool")

    def read(self, tool: Tool, args: BaseModel, placement: Placement) -> Any:
        """A read's answer; raises its error, or ``Timeout`` from a worker past the deadline."""
        if placement.where != "worker":
            return self.here(tool, args, placement)
        context = contextvars.copy_context()  # the caller's actor, into the worker
        future = self._pool.submit(context.run, self.here, tool, args, placement)
        try:
            return future.result(timeout=placement.seconds)
        except FutureTimeout as exc:
            future.cancel()
            raise Timeout.after(tool.name, placement.seconds) from exc

    def here(self, tool: Tool, args: BaseModel, placement: Placement) -> Any:
        """Run the tool on this thread - a sandboxed one in its child, killed at the deadline."""
        if tool.child is not None:
            payload = (
                args.model_dump(mode="json")
                if tool.child_payload is None
                else tool.child_payload(args, self._context)
            )
            return self._run_child(tool.child, payload, placement.seconds, tool.child_limits)
        return tool.function(args, self._context)

    def write(
        self, tool: Tool, execution: Callable[[], T], proposal_id: str, placement: Placement
    ) -> T:
        """A write's whole ``execution`` on a worker, behind a gate closed at the deadline."""
        seconds = placement.seconds
        gate = Gate(time.monotonic() + seconds)
        context = contextvars.copy_context()
        future = self._pool.submit(context.run, _through, gate, execution)
        try:
            return future.result(timeout=seconds)
        except FutureTimeout as exc:
            if future.cancel():
                raise Timeout(
                    f"{tool.name} could not start within {seconds:g} s; nothing was changed."
                ) from exc
            gate.close()
            raise OutcomeUnknown(
                f"{tool.name} is still running after {seconds:g} s and may yet change what it "
                f"was asked to, so do not simply retry: proposal {proposal_id} records how it "
                f"ends (get_proposal, or `fruitctl proposals show {proposal_id}`).",
                proposalId=proposal_id,
            ) from exc

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _through(gate: Gate, execution: Callable[[], T]) -> T:
    with gated(gate):
        return execution()
