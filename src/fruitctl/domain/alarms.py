"""Alarms of a reminder or an event, as they travel on the wire: exactly one of

- ``{"at": "2026-03-02T08:45:00+01:00"}``: at a moment (``EKAlarm.absoluteDate``, a VALARM
  TRIGGER with ``VALUE=DATE-TIME``);
- ``{"minutesBefore": 15}``: that long before the reminder's due (an event's start); 0 is at it,
  a negative number after it (``EKAlarm.relativeOffset``, a relative TRIGGER);
- ``{"location": {...}}``: on arriving at or leaving a place - kept only by a store that can
  (the others refuse it with ``Unsupported``, never drop it).

A person who mixes up "due" and "alert" (the peers' most common complaint) reads both: the due
is when it is due, an alarm is when it alerts.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, model_validator

from fruitctl.domain.dates import canonical_datetime
from fruitctl.domain.errors import InvalidParams, Unsupported

# Four weeks either side of the due: Calendar's own choices go to a week before; a month is
# past what anyone means by "remind me before", and bounds a mistyped number of minutes.
MINUTES_MAX = 4 * 7 * 24 * 60
# Reminders.app and Calendar show a handful; more is a loop gone wrong, not a person's wish.
ALARMS_MAX = 10
# The radius Apple's Reminders uses for "arriving" at an address is about 100 m; 100 km is a
# region, past which a location alarm is no longer one place.
RADIUS_MAX = 100_000

Proximity = Literal["arrive", "leave"]


def _when(value: Any) -> str:
    try:
        return canonical_datetime(value)
    except InvalidParams as exc:
        raise ValueError(exc.message) from exc


class Place(BaseModel):
    """Where a location alarm fires: a named point, a radius in metres, arriving or leaving."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str
    latitude: float
    longitude: float
    radius: int | None = None
    proximity: Proximity = "arrive"


class Alarm(BaseModel):
    """One alarm: exactly one of ``at``, ``minutesBefore``, ``location``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    at: Annotated[str, BeforeValidator(_when)] | None = None
    minutesBefore: int | None = None
    location: Place | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Alarm:
        given = [self.at is not None, self.minutesBefore is not None, self.location is not None]
        if sum(given) != 1:
            raise ValueError("an alarm is exactly one of 'at', 'minutesBefore' or 'location'")
        return self

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)

    @property
    def relative(self) -> bool:
        return self.minutesBefore is not None


def alarms_of(items: Iterable[dict[str, Any]]) -> tuple[Alarm, ...]:
    """Alarms from wire dicts a store wrote itself."""
    return tuple(Alarm.model_validate(item) for item in items)


def wire_alarms(alarms: Iterable[Alarm]) -> list[dict[str, Any]]:
    return [alarm.to_wire() for alarm in alarms]


def check_alarms(alarms: Iterable[Alarm], due: date | datetime | None, field: str) -> None:
    """An alarm relative to the due needs a due to count from: refused without one."""
    if due is None and any(alarm.relative for alarm in alarms):
        raise InvalidParams.relative_alarm_without_due(field)


def not_here(alarms: Iterable[Alarm], store: str) -> None:
    """A store that cannot keep a location alarm refuses it (never drops it)."""
    if any(alarm.location is not None for alarm in alarms):
        raise Unsupported.location_alarm(store)
