"""A repeat rule is judged by arithmetic on its parts before anything expands it: finer than
hourly is refused with the reason, and so is a rule whose BYxxx values multiply past
MAX_PER_DAY; the rules a person keeps pass unchanged."""

from __future__ import annotations

import pytest

from fruitctl.domain.calendar import check_rrule
from fruitctl.domain.errors import InvalidParams
from fruitctl.domain.recurrence import MAX_PER_DAY, parts_of, per_day

EVERY_MINUTE = ",".join(str(m) for m in range(60))


def _refused(rule: str) -> str:
    with pytest.raises(InvalidParams) as caught:
        check_rrule(rule)
    assert caught.value.details == {"field": "recurrence"}
    return caught.value.message


@pytest.mark.parametrize(
    ("rule", "said"),
    [("FREQ=SECONDLY", "every second"), ("freq=minutely;count=3", "every minute")],
)
def test_a_rule_finer_than_hourly_is_refused_saying_what_is_allowed(rule: str, said: str) -> None:
    message = _refused(rule)
    assert said in message and "at most hourly" in message
    assert "HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY" in message


def test_sixty_minutes_an_hour_is_a_minutely_rule_refused_by_arithmetic() -> None:
    message = _refused(f"FREQ=HOURLY;BYMINUTE={EVERY_MINUTE}")
    assert "up to 1440 times a day" in message and f"at most {MAX_PER_DAY}" in message
    assert "BYMINUTE" in message  # what to change


@pytest.mark.parametrize(
    ("rule", "daily"),
    [
        ("FREQ=HOURLY", 24),
        ("FREQ=HOURLY;INTERVAL=5", 5),  # 00, 05, 10, 15, 20
        ("FREQ=HOURLY;INTERVAL=30", 1),
        ("FREQ=HOURLY;BYHOUR=9,17", 2),
        ("FREQ=HOURLY;BYMINUTE=0,15,30,45", 96),
        ("FREQ=DAILY;BYHOUR=9,12,18;BYMINUTE=0,30", 6),
        ("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", 1),
        ("FREQ=MONTHLY;BYMONTHDAY=1,15;BYHOUR=8,8,8", 1),  # a value repeated counts once
    ],
)
def test_what_a_rule_makes_a_day_is_counted_from_its_parts(rule: str, daily: int) -> None:
    assert per_day(parts_of(rule)) == daily
    assert check_rrule(rule) == rule.upper()  # all within MAX_PER_DAY: kept as written


@pytest.mark.parametrize(
    "rule",
    [
        "FREQ=HOURLY;BYMINUTE=0,10,20,30,40,50",  # 144 a day
        "FREQ=DAILY;BYHOUR=" + ",".join(str(h) for h in range(24)) + ";BYMINUTE=0,10,20,30,40,50",
        f"FREQ=YEARLY;BYMONTH=1;BYMINUTE={EVERY_MINUTE};BYSECOND=0,30",
    ],
)
def test_many_times_a_day_by_any_frequency_is_refused(rule: str) -> None:
    assert "times a day" in _refused(rule)


def test_an_interval_that_is_no_number_is_counted_as_every_hour() -> None:
    # The backend's library refuses it when written; the count must not fail first.
    assert per_day(parts_of("FREQ=HOURLY;INTERVAL=x")) == 24


@pytest.mark.parametrize(
    "rule", ["FREQ=DAILY;INTERVAL=0", "FREQ=WEEKLY;INTERVAL=-2", "FREQ=DAILY;COUNT=0"]
)
def test_an_interval_or_count_of_nothing_is_refused(rule: str) -> None:
    with pytest.raises(InvalidParams, match="must be a whole number of 1 or more"):
        check_rrule(rule)
    assert check_rrule("FREQ=DAILY;INTERVAL=2;COUNT=3") == "FREQ=DAILY;INTERVAL=2;COUNT=3"
