"""A repeat rule and alarms in the words a person approving reads (``domain.repeat_words``):
every part of a rule is said, or the rule is shown as written beside the words."""

from __future__ import annotations

import pytest

from fruitctl.domain.alarms import Alarm, Place
from fruitctl.domain.repeat_words import (
    alarm_in_words,
    alarms_in_words,
    repeat_and_alarms,
    rule_in_words,
)


@pytest.mark.parametrize(
    ("rule", "words"),
    [
        ("FREQ=DAILY", "every day"),
        ("FREQ=HOURLY", "every hour"),
        ("FREQ=HOURLY;INTERVAL=4", "every 4 hours"),
        ("FREQ=DAILY;INTERVAL=3;COUNT=5", "every 3 days, 5 times"),
        ("FREQ=DAILY;COUNT=1", "every day, 1 time"),
        ("FREQ=WEEKLY", "every week"),
        ("FREQ=WEEKLY;BYDAY=MO", "every Monday"),
        ("RRULE:FREQ=WEEKLY;BYDAY=MO", "every Monday"),
        ("FREQ=WEEKLY;BYDAY=MO,FR", "every Monday and Friday"),
        ("FREQ=WEEKLY;BYDAY=MO,WE,FR", "every Monday, Wednesday and Friday"),
        ("FREQ=WEEKLY;BYDAY=FR,TH,WE,TU,MO", "every weekday"),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR", "every 2 weeks on Monday and Friday"),
        ("FREQ=MONTHLY", "every month"),
        ("FREQ=MONTHLY;BYMONTHDAY=1", "every month on the 1st"),
        ("FREQ=MONTHLY;BYMONTHDAY=2", "every month on the 2nd"),
        ("FREQ=MONTHLY;BYMONTHDAY=3", "every month on the 3rd"),
        ("FREQ=MONTHLY;BYMONTHDAY=11", "every month on the 11th"),
        ("FREQ=MONTHLY;BYMONTHDAY=22", "every month on the 22nd"),
        ("FREQ=MONTHLY;BYMONTHDAY=1,15", "every month on the 1st and 15th"),
        ("FREQ=MONTHLY;BYMONTHDAY=-1", "every month on the last day"),
        ("FREQ=MONTHLY;BYMONTHDAY=-2", "every month on the 2nd last day"),
        ("FREQ=MONTHLY;BYDAY=1MO", "every month on the first Monday"),
        ("FREQ=MONTHLY;BYDAY=-1FR", "every month on the last Friday"),
        ("FREQ=MONTHLY;BYDAY=2TU,4TU", "every month on the second Tuesday and the fourth Tuesday"),
        ("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "every month on the last weekday"),
        ("FREQ=MONTHLY;BYDAY=SA,SU;BYSETPOS=1", "every month on the first of Saturday or Sunday"),
        ("FREQ=YEARLY", "every year"),
        ("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=24", "every year on the 24th in February"),
        ("FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10", "every year on the last Sunday in October"),
        ("FREQ=YEARLY;BYMONTH=3,9", "every year in March and September"),
        ("FREQ=DAILY;BYHOUR=9", "every day at 09:00"),
        ("FREQ=DAILY;BYHOUR=9,18;BYMINUTE=30", "every day at 09:30 and 18:30"),
        ("FREQ=WEEKLY;BYDAY=MO;BYHOUR=8;BYMINUTE=15", "every Monday at 08:15"),
        ("FREQ=WEEKLY;UNTIL=20260630", "every week, until Tue 2026-06-30"),
        ("FREQ=DAILY;UNTIL=20260630T080000Z", "every day, until Tue 2026-06-30 10:00"),
        ("FREQ=WEEKLY;BYDAY=MO;WKST=SU", "every Monday"),
        ("FREQ=MONTHLY;BYWEEKNO=3", "every month (RRULE FREQ=MONTHLY;BYWEEKNO=3)"),
        ("FREQ=YEARLY;BYYEARDAY=100", "every year (RRULE FREQ=YEARLY;BYYEARDAY=100)"),
        (
            "FREQ=MONTHLY;BYSETPOS=1,2;BYDAY=MO",
            "repeats (RRULE FREQ=MONTHLY;BYSETPOS=1,2;BYDAY=MO)",
        ),
        ("FREQ=SECONDLY", "repeats (RRULE FREQ=SECONDLY)"),
    ],
)
def test_a_rule_in_words(rule: str, words: str) -> None:
    assert rule_in_words(rule) == words


@pytest.mark.parametrize(
    ("alarm", "words"),
    [
        (Alarm(minutesBefore=15), "alert 15 minutes before"),
        (Alarm(minutesBefore=1), "alert 1 minute before"),
        (Alarm(minutesBefore=60), "alert 1 hour before"),
        (Alarm(minutesBefore=90), "alert 1 hour 30 minutes before"),
        (Alarm(minutesBefore=2 * 24 * 60), "alert 2 days before"),
        (Alarm(minutesBefore=0), "alert at the time"),
        (Alarm(minutesBefore=-30), "alert 30 minutes after"),
        (Alarm(at="2026-03-02T08:45:00+01:00"), "alert at Mon 2026-03-02 08:45"),
        (
            Alarm(location=Place(title="Office", latitude=45.0, longitude=9.0)),
            "alert on arriving at Office",
        ),
        (
            Alarm(location=Place(title="Home", latitude=45.0, longitude=9.0, proximity="leave")),
            "alert on leaving Home",
        ),
    ],
)
def test_an_alarm_in_words(alarm: Alarm, words: str) -> None:
    assert alarm_in_words(alarm) == words


def test_both_together_as_a_proposal_says_them() -> None:
    assert (
        repeat_and_alarms("FREQ=WEEKLY;BYDAY=MO", [Alarm(minutesBefore=15)])
        == "every Monday, alert 15 minutes before"
    )
    assert repeat_and_alarms(None, [Alarm(minutesBefore=5), Alarm(minutesBefore=0)]) == (
        "alert 5 minutes before and alert at the time"
    )
    assert repeat_and_alarms(None, []) == ""
    assert alarms_in_words([]) == "no alert"
