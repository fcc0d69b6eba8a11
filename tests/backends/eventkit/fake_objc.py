"""Stand-ins for the few PyObjC objects a reminder's due, start and alarms go through
(``EKReminder``, ``EKAlarm``, ``NSDateComponents``, ``NSTimeZone``, ``NSDate``): thin and dumb,
they store what they are given and answer it back, so ``encode.py`` and ``decode.py`` run on
Linux. Every method but the helper ``at_a_place`` is one of EventKit's published selectors or
one of the Foundation messages ``test_selectors.py`` allows, with PyObjC's underscores."""

from __future__ import annotations

import types
from typing import Any

from fruitctl.backends.eventkit.decode import UNDEFINED


class NSDate:
    def __init__(self, seconds: float) -> None:
        self._seconds = seconds

    @classmethod
    def dateWithTimeIntervalSince1970_(cls, seconds: float) -> NSDate:
        return cls(seconds)

    def timeIntervalSince1970(self) -> float:
        return self._seconds


class NSTimeZone:
    def __init__(self, name: str) -> None:
        self._name = name

    @classmethod
    def timeZoneWithName_(cls, name: str) -> NSTimeZone:
        return cls(name)

    def name(self) -> str:
        return self._name


class NSDateComponents:
    """Every component undefined until set, as Foundation has it."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    @classmethod
    def alloc(cls) -> NSDateComponents:
        return cls()

    def init(self) -> NSDateComponents:
        return self

    def __getattr__(self, name: str) -> Any:
        if name.startswith("set") and name.endswith("_"):
            key = name[3].lower() + name[4:-1]
            return lambda value: self.values.__setitem__(key, value)
        if name in {"year", "month", "day", "hour", "minute", "second"}:
            return lambda: self.values.get(name, UNDEFINED)
        if name == "timeZone":
            return lambda: self.values.get("timeZone")
        raise AttributeError(name)


class EKAlarm:
    def __init__(self, offset: float = 0.0, absolute: NSDate | None = None) -> None:
        self._offset, self._absolute, self._location = offset, absolute, None

    @classmethod
    def alarmWithRelativeOffset_(cls, offset: float) -> EKAlarm:
        return cls(offset)

    @classmethod
    def alarmWithAbsoluteDate_(cls, when: NSDate) -> EKAlarm:
        return cls(absolute=when)

    @classmethod
    def at_a_place(cls, title: str) -> EKAlarm:
        """A location alarm, as the Reminders app makes one (not through fruitctl)."""
        alarm = cls()
        alarm._location = title
        return alarm

    def relativeOffset(self) -> float:
        return self._offset

    def absoluteDate(self) -> NSDate | None:
        return self._absolute

    def structuredLocation(self) -> Any:
        return self._location


class EKReminder:
    """A reminder's properties, stored as set."""

    def __init__(self, alarms: list[EKAlarm] | None = None) -> None:
        self._alarms = list(alarms or [])
        self._due: Any = None
        self._start: Any = None

    def alarms(self) -> list[EKAlarm]:
        return list(self._alarms)

    def addAlarm_(self, alarm: EKAlarm) -> None:
        self._alarms.append(alarm)

    def removeAlarm_(self, alarm: EKAlarm) -> None:
        self._alarms.remove(alarm)

    def setDueDateComponents_(self, components: Any) -> None:
        self._due = components

    def dueDateComponents(self) -> Any:
        return self._due

    def setStartDateComponents_(self, components: Any) -> None:
        self._start = components

    def startDateComponents(self) -> Any:
        return self._start

    def calendarItemIdentifier(self) -> str:
        return "r1"

    def calendar(self) -> None:
        return None

    def title(self) -> str:
        return "Dentist"

    def notes(self) -> None:
        return None

    def priority(self) -> int:
        return 0

    def isCompleted(self) -> bool:
        return False

    def completionDate(self) -> None:
        return None

    def creationDate(self) -> None:
        return None

    def lastModifiedDate(self) -> None:
        return None

    def URL(self) -> None:
        return None

    def recurrenceRules(self) -> list[Any]:
        return []


EVENTKIT = types.SimpleNamespace(EKAlarm=EKAlarm)
FOUNDATION = types.SimpleNamespace(
    NSDate=NSDate, NSTimeZone=NSTimeZone, NSDateComponents=NSDateComponents
)
