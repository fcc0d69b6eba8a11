"""A rule that never happens is refused by arithmetic, with the reason, before anything walks it
(the recurrence library would look for its next instance up to the year 9999); rare rules a
person keeps pass. The arithmetic is held to dateutil itself: on rules drawn at random, it says
"never" exactly when dateutil finds no instance in a whole 400-year cycle of the calendar."""

from __future__ import annotations

from datetime import date, datetime

import pytest
from dateutil.rrule import rrulestr
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fruitctl.domain.calendar import check_rrule
from fruitctl.domain.errors import InvalidParams
from fruitctl.domain.recurrence import parts_of, rule_problem
from fruitctl.domain.recurrence_days import why_never

# The Gregorian calendar repeats after 400 years: a rule with no instance in them has none.
CYCLE_START, CYCLE_END = datetime(2001, 1, 1), datetime(2400, 12, 31, 23, 59)
MONDAY = date(2026, 3, 2)


def _dateutil_finds(rule: str, start: datetime = CYCLE_START, until: datetime = CYCLE_END) -> bool:
    """Whether dateutil itself finds an instance of ``rule`` from ``start`` up to ``until``."""
    found = rrulestr(f"{rule};UNTIL={until:%Y%m%dT%H%M%S}", dtstart=start)
    return next(iter(found), None) is not None


NEVER = {
    "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30": "no date matches BYMONTH=2;BYMONTHDAY=30 in any year",
    "FREQ=HOURLY;BYMONTH=4;BYMONTHDAY=31": "no date matches BYMONTH=4;BYMONTHDAY=31",
    "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=31": "BYMONTH=2;BYMONTHDAY=31",
    "FREQ=WEEKLY;BYMONTH=2;BYMONTHDAY=-30": "BYMONTH=2;BYMONTHDAY=-30",
    "FREQ=DAILY;BYMONTH=1;BYYEARDAY=366": "BYMONTH=1;BYYEARDAY=366",
    "FREQ=DAILY;BYMONTH=6;BYWEEKNO=1": "BYMONTH=6;BYWEEKNO=1",
    "FREQ=MONTHLY;BYDAY=6MO": "no date matches BYDAY=6MO",
    "FREQ=MONTHLY;BYMONTH=2;BYDAY=5MO;BYMONTHDAY=1,28": "BYMONTH=2;BYMONTHDAY=1,28;BYDAY=5MO",
    "FREQ=YEARLY;BYMONTH=3;BYYEARDAY=31,-1;BYMONTHDAY=31": "in any year",
    "FREQ=HOURLY;BYSETPOS=2": "BYSETPOS=2 asks for more instances than any hour holds",
    "FREQ=DAILY;BYHOUR=9,17;BYSETPOS=3": "than any day holds",
    "FREQ=WEEKLY;BYDAY=MO;BYSETPOS=2": "than any week holds",
    "FREQ=WEEKLY;BYDAY=MO,TU,WE;BYYEARDAY=-166;BYSETPOS=3": "than any week holds",
    "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6": "than any month holds",
    "FREQ=YEARLY;BYMONTH=2;BYSETPOS=-30;BYMONTHDAY=1,2,3": "than any year holds",
}


@pytest.mark.parametrize("rule", sorted(NEVER))
def test_a_rule_that_never_happens_is_refused_with_the_reason(rule: str) -> None:
    with pytest.raises(InvalidParams) as caught:
        check_rrule(rule)
    assert "it never happens: " in caught.value.message
    assert NEVER[rule] in caught.value.message
    assert caught.value.details == {"field": "recurrence"}


@pytest.mark.parametrize(
    "rule",
    [
        "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29",  # leap years
        "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO",  # a leap day on a Monday: 28 years apart
        "FREQ=MONTHLY;BYDAY=5MO",
        "FREQ=MONTHLY;BYDAY=-1FR",
        "FREQ=MONTHLY;BYMONTHDAY=31",
        "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",  # the last working day
        "FREQ=YEARLY;BYWEEKNO=53;BYDAY=TH",
        "FREQ=YEARLY;BYYEARDAY=366",
        "FREQ=YEARLY;BYDAY=53FR",
        "FREQ=WEEKLY;BYDAY=MO,FR;BYSETPOS=2",
        "FREQ=WEEKLY;BYYEARDAY=1,-1;BYSETPOS=2",  # New Year's Eve and Day in one week
        "FREQ=DAILY;BYHOUR=9,12,17;BYSETPOS=-1",
        "FREQ=MONTHLY;BYMONTH=2;BYDAY=5MO",  # a leap February starting on a Monday
        "FREQ=YEARLY;BYMONTH=3,9;BYSETPOS=2",  # the start's day in March and in September
    ],
)
def test_rare_rules_a_person_keeps_are_kept(rule: str) -> None:
    assert rule_problem(parts_of(rule)) is None
    assert check_rrule(rule) == rule
    assert _dateutil_finds(rule)


@pytest.mark.parametrize(
    ("rule", "said", "crashes"),
    [
        ("FREQ=MONTHLY;BYDAY=2MO,21FR", "the 21FR: a weekday comes at most 5 times a month", True),
        ("FREQ=YEARLY;BYDAY=1MO,60FR", "at most 53 times a year", True),
        ("FREQ=YEARLY;BYMONTH=12;BYDAY=1MO,-6FR", "give an ordinal from -5 to 5", False),
    ],
)
def test_an_ordinal_past_any_month_or_year_is_refused(rule: str, said: str, crashes: bool) -> None:
    with pytest.raises(InvalidParams, match=said):
        check_rrule(rule)
    if crashes:  # what a read of a December of it would end in, in the middle of a sync
        with pytest.raises(IndexError):
            list(rrulestr(f"{rule};UNTIL=20020101", dtstart=CYCLE_START))


@pytest.mark.parametrize(
    ("rule", "start", "never"),
    [
        ("FREQ=MONTHLY;BYMONTH=2", date(2026, 1, 30), True),  # a February 30th every year
        ("FREQ=MONTHLY;BYMONTH=2", date(2026, 1, 28), False),
        ("FREQ=YEARLY;BYMONTH=4", date(2026, 3, 31), True),
        ("FREQ=DAILY;INTERVAL=7;BYDAY=TU", MONDAY, True),  # every step lands on a Monday
        ("FREQ=DAILY;INTERVAL=14;BYDAY=MO", MONDAY, False),
        ("FREQ=DAILY;INTERVAL=3;BYDAY=TU", MONDAY, False),
        ("FREQ=HOURLY;INTERVAL=168;BYDAY=SU", MONDAY, True),
        ("FREQ=MONTHLY;INTERVAL=6;BYMONTH=4,5", MONDAY, True),  # March and September only
        ("FREQ=MONTHLY;INTERVAL=6;BYMONTH=9", MONDAY, False),
    ],
)
def test_what_a_rule_takes_from_its_start_is_judged_with_the_start(
    rule: str, start: date, never: bool
) -> None:
    parts = parts_of(rule)
    assert why_never(parts) is None  # without the start the rule may happen
    reason = why_never(parts, start)
    assert (reason is not None) == never
    if never:
        assert f"from its start on {start.isoformat()}" in str(reason)
    first = datetime.combine(start, datetime.min.time())
    assert _dateutil_finds(rule, first, first.replace(year=start.year + 30)) == (not never)


# -- held to dateutil ----------------------------------------------------------------------------

_DAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


def _values(low: int, high: int, most: int = 2) -> st.SearchStrategy[str]:
    numbers = st.integers(low, high).filter(bool)
    return st.lists(numbers, min_size=1, max_size=most, unique=True).map(
        lambda found: ",".join(map(str, found))
    )


def _byday(ordinals: int) -> st.SearchStrategy[str]:
    one = st.tuples(st.integers(-ordinals, ordinals), st.sampled_from(_DAYS)).map(
        lambda pair: f"{pair[0] or ''}{pair[1]}"
    )
    return st.lists(one, min_size=1, max_size=2, unique=True).map(",".join)


@st.composite
def _rules(draw: st.DrawFn) -> str:
    """A YEARLY or MONTHLY rule with date filters (and BYSETPOS) drawn to meet at edges:
    month ends, leap days, the 53rd week and the last weekday of a month or year."""
    frequency = draw(st.sampled_from(["YEARLY", "MONTHLY"]))
    ordinals = 53 if frequency == "YEARLY" else 5
    optional = {
        "BYMONTH": _values(1, 12),
        "BYWEEKNO": _values(-53, 53, most=1),
        "BYYEARDAY": st.one_of(_values(-366, 366), _values(58, 61), _values(-366, -364)),
        "BYMONTHDAY": st.one_of(_values(-31, 31), _values(28, 31)),
        "BYDAY": _byday(ordinals),
        "BYSETPOS": _values(-8, 8, most=1),
        "WKST": st.sampled_from(_DAYS),
    }
    parts = [f"FREQ={frequency}"]
    for name, values in optional.items():
        if draw(st.booleans()):
            parts.append(f"{name}={draw(values)}")
    return ";".join(parts)


# Each example walks dateutil through 400 years (about half a second): 30 a run, new ones each run.
@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(_rules())
# Days before week 1 belong to last year's last week, numbered as dateutil numbers it (52 here).
@example("FREQ=YEARLY;BYWEEKNO=52;BYYEARDAY=-364")
def test_never_is_said_exactly_when_dateutil_finds_no_instance_in_400_years(rule: str) -> None:
    start = CYCLE_START.date()
    try:
        found = _dateutil_finds(rule)
    except IndexError:  # dateutil's tables end before a far ordinal: refused before it is asked
        assert rule_problem(parts_of(rule), start) is not None, rule
        return
    assert (why_never(parts_of(rule), start) is None) == found, rule
