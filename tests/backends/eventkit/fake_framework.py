"""A stand-in for PyObjC's ``EventKit`` module, just enough for the real ``EventKitAdapter`` to
run its permission and list reads on Linux: ``EKEventStore`` with the behaviour Apple's users
report - a store keeps the view it had when it was made, so one made before access was granted
shows no calendars (heznpc/AirMCP#145, ebarooni/capacitor-calendar#219) - and a privacy
database (``Tcc``) whose prompt the test answers. Every method here is one of EventKit's
published selectors (``eventkit-selectors.txt``), with PyObjC's underscores.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fruitctl.backends.eventkit.values import FULL_ACCESS, NOT_DETERMINED

ENTITY_TYPES = {"event": 0, "reminder": 1}
REQUESTS = {
    "requestFullAccessToRemindersWithCompletion:": 1,
    "requestFullAccessToEventsWithCompletion:": 0,
}


@dataclass
class Tcc:
    """This Mac's privacy settings for the process, and what the person answers."""

    status: dict[int, int] = field(default_factory=lambda: {0: NOT_DETERMINED, 1: NOT_DETERMINED})
    answer: bool = True
    calendars: dict[int, list[FakeCalendar]] = field(default_factory=lambda: {0: [], 1: []})
    stores: list[FakeStore] = field(default_factory=list)
    requests: list[int] = field(default_factory=list)


class FakeSource:
    def title(self) -> str:
        return "iCloud"


@dataclass
class FakeCalendar:
    ident: str
    name: str

    def calendarIdentifier(self) -> str:
        return self.ident

    def title(self) -> str:
        return self.name

    def allowsContentModifications(self) -> bool:
        return True

    def source(self) -> FakeSource:
        return FakeSource()

    def color(self) -> None:
        return None


class FakeStore:
    """``EKEventStore``: what it shows is fixed when it is made (or ``reset``)."""

    tcc: Tcc

    def __init__(self) -> None:
        self._view: dict[int, list[FakeCalendar]] = {}
        self.tcc.stores.append(self)
        self.reset()

    def reset(self) -> None:
        granted = {t for t, status in self.tcc.status.items() if status == FULL_ACCESS}
        self._view = {t: list(self.tcc.calendars[t]) if t in granted else [] for t in (0, 1)}

    def respondsToSelector_(self, selector: str) -> bool:
        return selector in REQUESTS

    def _request(self, entity_type: int, handler: Callable[[bool, Any], None]) -> None:
        # EventKit answers on a queue of its own, after the person has chosen.
        self.tcc.requests.append(entity_type)
        if self.tcc.status[entity_type] == NOT_DETERMINED:
            self.tcc.status[entity_type] = FULL_ACCESS if self.tcc.answer else 2
        granted = self.tcc.status[entity_type] == FULL_ACCESS
        threading.Thread(target=handler, args=(granted, None)).start()

    def requestFullAccessToRemindersWithCompletion_(self, handler: Any) -> None:
        self._request(1, handler)

    def requestFullAccessToEventsWithCompletion_(self, handler: Any) -> None:
        self._request(0, handler)

    def calendarsForEntityType_(self, entity_type: int) -> list[FakeCalendar]:
        return list(self._view[entity_type])

    def defaultCalendarForNewReminders(self) -> FakeCalendar | None:
        return next(iter(self._view[1]), None)

    def defaultCalendarForNewEvents(self) -> FakeCalendar | None:
        return next(iter(self._view[0]), None)

    def refreshSourcesIfNecessary(self) -> None:
        """Apple: refreshes the sources' data - not what the store was allowed to see."""

    def predicateForIncompleteRemindersWithDueDateStarting_ending_calendars_(
        self, start: Any, end: Any, calendars: Any
    ) -> tuple[str, Any]:
        return ("incomplete", calendars)

    def fetchRemindersMatchingPredicate_completion_(
        self, predicate: Any, handler: Callable[[list[Any]], None]
    ) -> int:
        threading.Thread(target=handler, args=([],)).start()
        return 1


class _Allocator:
    def __init__(self, kind: type[FakeStore]) -> None:
        self._kind = kind

    def init(self) -> FakeStore:
        return self._kind()


def framework(tcc: Tcc) -> Any:
    """A module-like ``EventKit`` whose stores all read ``tcc``."""

    class EKEventStore(FakeStore):
        @staticmethod
        def authorizationStatusForEntityType_(entity_type: int) -> int:
            return tcc.status[entity_type]

        @classmethod
        def alloc(cls) -> _Allocator:
            return _Allocator(cls)

    EKEventStore.tcc = tcc

    class Module:
        pass

    module = Module()
    module.EKEventStore = EKEventStore  # type: ignore[attr-defined]
    return module
