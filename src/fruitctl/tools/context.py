"""What a tool function may use. Parts are built on first use, so a tool that reads a file never
opens the reminders store, and a sandboxed child builds only what its tool touches."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from fruitctl.policy.decision import Actor
    from fruitctl.services.calendar import CalendarService
    from fruitctl.services.files import FileService
    from fruitctl.services.reminders import RemindersService
    from fruitctl.services.system import SystemService
    from fruitctl.services.things import ThingsService
    from fruitctl.services.web import WebSearchService


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

    @cached_property
    def reminders(self) -> RemindersService:
        service: RemindersService = self._factories["reminders"]()
        return service

    @cached_property
    def calendar(self) -> CalendarService:
        service: CalendarService = self._factories["calendar"]()
        return service

    @cached_property
    def things(self) -> ThingsService:
        service: ThingsService = self._factories["things"]()
        return service

    @cached_property
    def files(self) -> FileService:
        service: FileService = self._factories["files"]()
        return service

    @cached_property
    def system(self) -> SystemService:
        service: SystemService = self._factories["system"]()
        return service

    @cached_property
    def approvals(self) -> Proposals:
        engine: Proposals = self._factories["approvals"]()
        return engine

    @cached_property
    def allowlists(self) -> Allowlists:
        """The allowlists a person set (``fruitctl config``)."""
        store: Allowlists = self._factories["allowlists"]()
        return store

    @cached_property
    def web(self) -> WebSearchService:
        service: WebSearchService = self._factories["web"]()
        return service
