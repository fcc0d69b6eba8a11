"""The tool context every capability's tools, changes and targets are given: the kernel's
(``tools.context.ToolContext``) and each capability's service, built on first use."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from fruitctl.tools.context import ToolContext

if TYPE_CHECKING:
    from fruitctl.capabilities.calendar.service import CalendarService
    from fruitctl.capabilities.files.service import FileService
    from fruitctl.capabilities.reminders.service import RemindersService
    from fruitctl.capabilities.system.service import SystemService
    from fruitctl.capabilities.things.service import ThingsService
    from fruitctl.capabilities.web.service import WebSearchService


class Context(ToolContext):
    @cached_property
    def reminders(self) -> RemindersService:
        service: RemindersService = self._built("reminders")
        return service

    @cached_property
    def calendar(self) -> CalendarService:
        service: CalendarService = self._built("calendar")
        return service

    @cached_property
    def things(self) -> ThingsService:
        service: ThingsService = self._built("things")
        return service

    @cached_property
    def files(self) -> FileService:
        service: FileService = self._built("files")
        return service

    @cached_property
    def system(self) -> SystemService:
        service: SystemService = self._built("system")
        return service

    @cached_property
    def web(self) -> WebSearchService:
        service: WebSearchService = self._built("web")
        return service
