"""What a tool function may use. Parts are built on first use, so a tool that reads a file never
opens the reminders store, and a sandboxed child builds only what its tool touches."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fruitctl.services.files import FileService
    from fruitctl.services.reminders import RemindersService
    from fruitctl.services.system import SystemService
    from fruitctl.services.web import WebSearchService


class ToolContext:
    def __init__(self, factories: dict[str, Callable[[], Any]], rules: Callable[[str], Any]):
        self._factories = factories
        self._rules = rules

    def rules(self, tool_name: str) -> Any:
        """The effective governance rules of a tool (``policy.governance.ToolRules``)."""
        return self._rules(tool_name)

    @cached_property
    def reminders(self) -> RemindersService:
        service: RemindersService = self._factories["reminders"]()
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
    def web(self) -> WebSearchService:
        service: WebSearchService = self._factories["web"]()
        return service
