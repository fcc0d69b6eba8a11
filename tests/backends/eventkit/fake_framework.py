"""A stand-in for PyObjC's ``EventKit`` module and ``objc``'s autorelease pool, just enough for
the real ``EventKitAdapter`` to run on Linux. Thin and dumb: it keeps what it is told and
answers what EventKit answers, as Apple documents it or its users report it -

- a store keeps the view it had when it was made, so one made before access was granted shows
  no calendars (heznpc/AirMCP#145, ebarooni/capacitor-calendar#219); a privacy database
  (``Tcc``) whose prompt the test answers;
- a store hands out the objects it loaded, the same ones until ``reset``: what another app
  commits meanwhile is not in them (jfversluis/Plugin.Maui.CalendarStore#77, sfsam/Itsycal#97,
  ronaldoussoren/pyobjc#525); ``refreshSourcesIfNecessary`` pulls accounts and drops nothing;
  saves wait for a commit, and ``reset`` drops what was not committed (``fake_store.py``).

And one thing EventKit does not promise but fruitctl does: every message to an EventKit object
is sent from one thread, inside an autorelease pool. The fake checks each message against that
and records (and raises) a violation, so a test proves it instead of hoping a race shows up.
Every method here is one of EventKit's published selectors (``eventkit-selectors.txt``), with
PyObjC's underscores.
"""

from __future__ import annotations

import itertools
import threading
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from backends.eventkit.fake_objc import FOUNDATION, NSDate

from fruitctl.backends.eventkit.values import NOT_DETERMINED

ENTITY_TYPES = {"event": 0, "reminder": 1}
REQUESTS = {
    "requestFullAccessToRemindersWithCompletion:": 1,
    "requestFullAccessToEventsWithCompletion:": 0,
}
# How PyObjC raises an Objective-C exception of these names (objc_util.m, ObjCErr_PyExcForName).
PYOBJC_EXCEPTIONS: dict[str, type[Exception]] = {
    "NSRangeException": IndexError,
    "NSInvalidArgumentException": ValueError,
    "NSUnknownKeyException": KeyError,
}


class ObjcError(Exception):
    """``objc.error``: what PyObjC raises for an Objective-C exception of any other name."""


def nsexception(name: str, reason: str) -> Exception:
    """An Objective-C exception as PyObjC hands it to Python: its class by name, its name and
    reason in ``_pyobjc_info_``."""
    raised = PYOBJC_EXCEPTIONS.get(name, ObjcError)(f"{name} - {reason}")
    raised._pyobjc_info_ = {"name": name, "reason": reason, "userInfo": None}  # type: ignore[attr-defined]
    return raised


class NSError:
    """What an ``NSError **`` out-parameter hands back (PyObjC: the second of ``(ok, error)``)."""

    def __init__(self, domain: str, code: int, description: str) -> None:
        self._domain, self._code, self._description = domain, code, description

    def domain(self) -> str:
        return self._domain

    def code(self) -> int:
        return self._code

    def localizedDescription(self) -> str:
        return self._description


class Pools:
    """``objc.autorelease_pool``, counted per thread."""

    def __init__(self) -> None:
        self._open: dict[int, int] = {}
        self.entered = 0
        self.drained = 0

    @contextmanager
    def autorelease_pool(self) -> Iterator[None]:
        here = threading.get_ident()
        self._open[here] = self._open.get(here, 0) + 1
        self.entered += 1
        try:
            yield
        finally:
            self._open[here] -= 1
            self.drained += 1

    def open_here(self) -> bool:
        return self._open.get(threading.get_ident(), 0) > 0


@dataclass
class Tcc:
    """This Mac: its privacy settings for the process and what the person answers, and the
    calendar database every app's stores read and commit to (``saved``: item id -> the item's
    properties, by EventKit's names)."""

    status: dict[int, int] = field(default_factory=lambda: {0: NOT_DETERMINED, 1: NOT_DETERMINED})
    answer: bool = True
    calendars: dict[int, list[FakeCalendar]] = field(default_factory=lambda: {0: [], 1: []})
    stores: list[Any] = field(default_factory=list)
    requests: list[int] = field(default_factory=list)
    saved: dict[str, dict[str, Any]] = field(default_factory=dict)
    pools: Pools = field(default_factory=Pools)
    messages: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    writes: list[tuple[str, str, int | None]] = field(default_factory=list)
    """Each item saved or removed: ``("save" | "remove", its id, the span given for an event)``."""
    fail: dict[str, Exception] = field(default_factory=dict)
    """A message's next sending raises this (an ``nsexception``, as PyObjC would)."""
    refusals: list[NSError | None] = field(default_factory=list)
    """What the next saves or removals answer through their ``NSError **``, one each (None:
    that one succeeds)."""
    hold: dict[str, threading.Event] = field(default_factory=dict)
    """A message's next sending waits for this event to be set (EventKit taking its time);
    ``holding`` is set once it waits."""
    holding: threading.Event = field(default_factory=threading.Event)
    owner: threading.Thread | None = None
    _ids: Iterator[int] = field(default_factory=itertools.count)
    _clock: float = 1_780_000_000.0

    def check(self, message: str) -> None:
        """Every message: on the thread the first one came from, inside an autorelease pool."""
        selector = message.replace("_", ":")
        here = threading.current_thread()
        if self.owner is None:
            self.owner = here
        problem = None
        if here is not self.owner:
            problem = f"{selector} sent on {here.name}, not on {self.owner.name}"
        elif not self.pools.open_here():
            problem = f"{selector} sent outside an autorelease pool"
        if problem is not None:
            self.violations.append(problem)
            raise AssertionError(problem)
        self.messages.append(selector)
        release = self.hold.pop(selector, None)
        if release is not None:
            self.holding.set()
            release.wait()
        failure = self.fail.pop(selector, None)
        if failure is not None:
            raise failure

    def new_id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids)}"

    def stamp(self) -> NSDate:
        """Now, as a commit stamps ``lastModifiedDate``: later than every stamp before."""
        self._clock += 1
        return NSDate(self._clock)

    def edit(self, item_id: str, **changes: Any) -> None:
        """Another app (Reminders.app, Calendar.app) commits a change to an item."""
        self.saved[item_id] = {**self.saved[item_id], **changes, "lastModifiedDate": self.stamp()}


class Confined:
    """An Objective-C object: each message sent to it is checked by its Mac."""

    _mac: Tcc | None = None

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        mac = object.__getattribute__(self, "_mac")
        if mac is not None and not name.startswith("_") and callable(value):
            mac.check(name)
        return value


@dataclass(frozen=True)
class FakeSource:
    """An account (``EKSource``): iCloud, Google, On My Mac ..."""

    name: str = "iCloud"

    def title(self) -> str:
        return self.name


@dataclass
class FakeCalendar(Confined):
    ident: str
    name: str
    entity: int = 1
    account: str = "iCloud"
    """The title of its source: two calendars in two accounts may share a name."""

    def calendarIdentifier(self) -> str:
        return self.ident

    def title(self) -> str:
        return self.name

    def setTitle_(self, title: str) -> None:
        self.name = title

    def allowsContentModifications(self) -> bool:
        return True

    def source(self) -> FakeSource:
        return FakeSource(self.account)

    def setSource_(self, source: FakeSource) -> None:
        self.account = source.title()

    def color(self) -> None:
        return None


def framework(tcc: Tcc) -> Any:
    """A module-like ``EventKit`` whose stores and objects all belong to ``tcc``."""
    from backends.eventkit.fake_store import EKEvent, EKReminder, FakeStore, recurrence_kinds

    class EKEventStore(FakeStore):
        @staticmethod
        def authorizationStatusForEntityType_(entity_type: int) -> int:
            tcc.check("authorizationStatusForEntityType:")
            return tcc.status[entity_type]

        @classmethod
        def alloc(cls) -> _Allocator:
            tcc.check("alloc")
            return _Allocator(cls)

    class EKCalendar:
        @staticmethod
        def calendarForEntityType_eventStore_(entity_type: int, store: Any) -> FakeCalendar:
            tcc.check("calendarForEntityType:eventStore:")
            made = FakeCalendar(tcc.new_id("cal"), "", entity_type)
            made._mac = tcc
            return made

    EKEventStore.tcc = tcc
    EKEventStore._mac = tcc
    return types.SimpleNamespace(
        EKEventStore=EKEventStore,
        EKCalendar=EKCalendar,
        EKReminder=EKReminder,
        EKEvent=EKEvent,
        **recurrence_kinds(tcc),
    )


def objc_module(tcc: Tcc) -> Any:
    """A module-like ``objc``: its autorelease pool, counted by ``tcc``."""
    return types.SimpleNamespace(autorelease_pool=tcc.pools.autorelease_pool, error=ObjcError)


def install(tcc: Tcc, monkeypatch: Any) -> None:
    """This process as a Mac with PyObjC whose EventKit is ``tcc``'s."""
    import sys

    from backends.eventkit.fake_objc import EKAlarm

    kit = framework(tcc)
    kit.EKAlarm = EKAlarm
    monkeypatch.setitem(sys.modules, "EventKit", kit)
    monkeypatch.setitem(sys.modules, "Foundation", FOUNDATION)
    monkeypatch.setitem(sys.modules, "objc", objc_module(tcc))


class _Allocator:
    def __init__(self, kind: type[Any]) -> None:
        self._kind = kind

    def init(self) -> Any:
        return self._kind()
