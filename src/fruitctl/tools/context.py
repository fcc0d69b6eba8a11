"""What a tool function may use: the kernel's part of it - the person's allowlists, the proposals,
a tool's governance rules, and who is calling. A capability's services are built on first use
(``capabilities.context.Context``), so a tool that reads a file never opens the reminders store,
and a sandboxed child builds only what its tool touches."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from fruitctl.domain.actors import Actor


# Who is calling, for the tools that answer differently per caller (an agent sees only its own
# proposals). Set by the gateway around each execution.
current_actor: ContextVar[Actor | None] = ContextVar("fruitctl_actor", default=None)


class Proposals(Protocol):
    """What a tool reads of the approval engine (``approvals.engine.Approvals``), which sits
    above the tools: a proposal as its caller may see it."""

    def get(self, proposal_id: str, actor: Actor | None = None) -> dict[str, Any]: ...


class Allowlists(Protocol):
    """What a target rule reads of the person's allowlists (``approvals.allowlists``)."""

    def get(self, key: str) -> Any: ...


class ToolContext:
    def __init__(self, factories: dict[str, Callable[[], Any]], rules: Callable[[str], Any]):
        self._factories = factories
        self._rules = rules

    def opened(self, part: str | None) -> bool:
        """Whether a part (``"reminders"``, ``"calendar"``...) has been built already."""
        return part is not None and part in self.__dict__  # where cached_property keeps it

    def rules(self, tool_name: str) -> Any:
        """The effective governance rules of a tool (``policy.governance.ToolRules``)."""
        return self._rules(tool_name)

    def _built(self, part: str) -> Any:
        return self._factories[part]()

    @cached_property
    def approvals(self) -> Proposals:
        engine: Proposals = self._built("approvals")
        return engine

    @cached_property
    def allowlists(self) -> Allowlists:
        """The allowlists a person set (``fruitctl config``)."""
        store: Allowlists = self._built("allowlists")
        return store
