"""The alarm a reminder or an event is given (``alarms: [...]``): one input model for both
capabilities, so its fields, bounds and descriptions are written once
(``domain.alarms`` says what each kind means and keeps them)."""

from __future__ import annotations

from pydantic import Field, model_validator

from fruitctl.domain.alarms import ALARMS_MAX, MINUTES_MAX, RADIUS_MAX, Alarm, Proximity
from fruitctl.domain.dates import format_datetime, parse_datetime
from fruitctl.tools.inputs import Input, Line


class AlarmPlace(Input):
    title: Line = Field(min_length=1, max_length=200, description="The place's name")
    latitude: float = Field(ge=-90, le=90, description="Degrees north")
    longitude: float = Field(ge=-180, le=180, description="Degrees east")
    radius: int | None = Field(None, ge=1, le=RADIUS_MAX, description="Metres around it")
    proximity: Proximity = Field("arrive", description="Alert on arriving or on leaving")


class AlarmInput(Input):
    at: str | None = Field(None, description="Alert at this ISO 8601 date-time")
    minutesBefore: int | None = Field(
        None,
        ge=-MINUTES_MAX,
        le=MINUTES_MAX,
        description="Alert this many minutes before the due time (an event's start); 0 at "
        "it, negative after it",
    )
    location: AlarmPlace | None = Field(
        None, description="Alert on arriving at or leaving a place (where the store can)"
    )

    @model_validator(mode="after")
    def _one_kind(self) -> AlarmInput:
        given = [self.at, self.minutesBefore, self.location]
        if sum(value is not None for value in given) != 1:
            raise ValueError("an alarm is exactly one of 'at', 'minutesBefore' or 'location'")
        return self


ALARMS_HELP = (
    f"Alerts, at most {ALARMS_MAX}: each one of {{'minutesBefore': 15}}, "
    "{'at': '2026-03-02T08:45:00+01:00'} or {'location': {...}}"
)


def domain_alarms(given: list[AlarmInput]) -> tuple[Alarm, ...]:
    """The alarms asked for, as the domain keeps them; a bad date is ``InvalidParams``."""
    return tuple(_alarm(item) for item in given)


def _alarm(item: AlarmInput) -> Alarm:
    if item.at is not None:
        return Alarm(at=format_datetime(parse_datetime(item.at)))
    return Alarm.model_validate(item.model_dump(exclude_none=True))
