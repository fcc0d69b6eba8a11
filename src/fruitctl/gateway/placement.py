"""Where a call runs and until when: decided here, once, for every entry into the gateway.

The deadline of a call is its tool's ``timeout_seconds`` (governance may change it), or the
door's cap on a request when that is shorter (the socket's ``request_timeout_seconds``): the
shorter wins, always. Nothing a tool waits on extends it: Things' ``confirm_seconds`` is how
long a write may watch for its change to show, and the watch ends in time for the call to
answer within its deadline (``domain.writes.remaining``) - as "sent, not confirmed".

Where it runs, by what it is and who asks (``Entry``):

=====================================  ==================  =================================
call                                   runs                at its deadline
=====================================  ==================  =================================
a read its store answers at once       the event loop      (a few bounded reads: none)
  (``Tool.at_once``), from a loop
another in-process read, from a loop   a thread of the     abandoned: ``timeout`` (the
                                       loop's              thread finishes in the background)
another in-process read, from a        a gateway worker    abandoned: ``timeout``
  caller's own thread (CLI, tests)
a sandboxed read                       a child process     killed: ``timeout``
a write (in process or sandboxed)      a gateway worker,   not started: ``timeout``, nothing
                                       through the write   changed; started: ``outcome_unknown``
                                       gate                - it goes on, and its proposal
                                                           records how it ended
=====================================  ==================  =================================

A write is never abandoned: answering "failed" while it may still land would invite a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from fruitctl.tools.model import Tool

Where = Literal["loop", "here", "worker", "child"]
"""``loop``: the event loop's thread; ``here``: the thread that asked (one its door abandons
at the deadline); ``worker``: the gateway's pool; ``child``: a sandboxed child process."""
Entry = Literal["loop", "thread", "caller"]
"""Who asks: a door on its event loop; a door's thread, abandoned at the deadline; a caller's
own thread, which nobody abandons (the CLI in-process, a person's approval)."""


@dataclass(frozen=True)
class Placement:
    where: Where
    seconds: float
    """The call's deadline, from its start."""

    @property
    def abandoned(self) -> bool:
        """Whether a door's thread running it is let go at the deadline (a read in this
        process); a write, or a child that is killed at it, is waited for."""
        return self.where == "here"


def deadline(tool: Tool, limit: float | None) -> float:
    """The tool's timeout, or the door's cap when shorter."""
    timeout = tool.definition.timeout_seconds
    return timeout if limit is None else min(timeout, limit)


def place(tool: Tool, entry: Entry, limit: float | None = None) -> Placement:
    """Where ``tool`` runs when ``entry`` asks, under which deadline (the module's table).
    ``loop`` is asked only for a read its store answers at once (``Gateway.answer_now``)."""
    seconds = deadline(tool, limit)
    if tool.writes:
        return Placement("worker", seconds)
    if tool.child is not None:
        return Placement("child", seconds)
    if entry == "caller":
        return Placement("worker", seconds)
    return Placement("loop" if entry == "loop" else "here", seconds)
