"""What find_free_time costs over a plain range read of the same month, on the local store.

Run with ``.venv/bin/python benchmarks/free_time.py`` (``make bench``). It fills a fresh
``local.db`` (a temporary directory, removed afterwards) with a busy month: 2,000 event
occurrences in March 2026 in Europe/Rome (the clocks change on the 29th) - single events
07:00-20:00 of 15 minutes to 2 hours, weekly series, some all-day events and some marked free
(TRANSP:TRANSPARENT) - then times:

- ``floor: range read``: ``LocalCalendars.events`` over the month, every occurrence, no limit -
  what find_free_time must read anyway (the store's own range read, series expanded);
- ``query_events (limit 1000)``: the read tool's whole answer, for scale;
- ``find_free_time: whole days``: the month, no working hours, 30-minute minimum;
- ``find_free_time: 09:00-17:00 weekdays``: the same with working hours on Monday-Friday.

Each is warmed up, then repeated for about a second in five rounds taking turns (so a load on
the machine falls on all alike); the table shows p50 and p99 in ms and the
p50 as a multiple of the floor's. The target is find_free_time within 2x of the floor, reported
as PASS/FAIL; a FAIL exits 1. Results go to
``benchmarks/results/free_time.json``.
"""

from __future__ import annotations

import json
import os
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from rich.console import Console
from rich.table import Table

from fruitctl.backends.local.calendars import LocalCalendars
from fruitctl.capabilities.calendar.service import CalendarService
from fruitctl.domain.dates import use_zone
from fruitctl.ports import EventRange, NewEvent
from fruitctl.store import open_database

ROME = ZoneInfo("Europe/Rome")
MONTH = EventRange(datetime(2026, 3, 1, tzinfo=ROME), datetime(2026, 4, 1, tzinfo=ROME))
OCCURRENCES = 2_000
SERIES = 20  # weekly, Mondays to Fridays by turns: 4-5 occurrences each in the month
ALL_DAY, FREE = 60, 100
SEED = 20_261_126
BUDGET_S = 1.0
MIN_REPS, MAX_REPS = 10, 200
ROUNDS = 5
TARGET = 2.0
RESULTS = Path(__file__).parent / "results" / "free_time.json"
WHOLE = {"from": "2026-03-01", "to": "2026-03-31", "minutes": 30}
WORKING = {**WHOLE, "hours": "09:00-17:00", "weekdays": ["mon", "tue", "wed", "thu", "fri"]}
TRANSPARENT = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\nBEGIN:VEVENT\r\nUID:free-{n}\r\n"
    "SUMMARY:maybe {n}\r\nDTSTART;TZID=Europe/Rome:{start:%Y%m%dT%H%M%S}\r\n"
    "DTEND;TZID=Europe/Rome:{end:%Y%m%dT%H%M%S}\r\nTRANSP:TRANSPARENT\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n"
)


def _moment(rng: random.Random) -> tuple[datetime, datetime]:
    day = 1 + rng.randrange(31)
    start = datetime(2026, 3, day, 7, tzinfo=ROME) + timedelta(minutes=15 * rng.randrange(52))
    return start, start + timedelta(minutes=15 * rng.randint(1, 8))


def fill(store: LocalCalendars) -> int:
    """The month's events; answers how many occurrences the month holds."""
    rng = random.Random(SEED)
    calendar = store.calendars()[0].id
    for n in range(SERIES):
        start = datetime(2026, 3, 2 + n % 5, 8 + n % 9, tzinfo=ROME)
        end = start + timedelta(minutes=45)
        weekly = NewEvent(
            calendar, f"series {n}", start, end, "Europe/Rome", recurrence="FREQ=WEEKLY"
        )
        store.create_event(weekly)
    for n in range(ALL_DAY):
        day = date(2026, 3, 1 + n % 31)
        store.create_event(NewEvent(calendar, f"all day {n}", day, day + timedelta(days=1)))
    for n in range(FREE):
        start, end = _moment(rng)
        store.put_object(calendar, TRANSPARENT.format(n=n, start=start, end=end))
    single = OCCURRENCES - len(store.events(MONTH))
    for n in range(single):
        start, end = _moment(rng)
        store.create_event(NewEvent(calendar, f"event {n}", start, end, timezone="Europe/Rome"))
    return len(store.events(MONTH))


def measure(runs: dict[str, Callable[[], object]]) -> dict[str, dict[str, float]]:
    """Each run warmed up, then timed in ``ROUNDS`` alternating rounds (the machine's load
    falls on all of them alike), about ``BUDGET_S`` each in all."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for run in runs.values():
        for _ in range(3):
            run()
    for _ in range(ROUNDS):
        for name, run in runs.items():
            _time(run, times[name], MIN_REPS // ROUNDS or 1, MAX_REPS // ROUNDS, BUDGET_S / ROUNDS)
    return {name: _summary(found) for name, found in times.items()}


def _time(
    run: Callable[[], object], into: list[float], least: int, most: int, budget: float
) -> None:
    started, done = time.perf_counter(), 0
    while done < least or (done < most and time.perf_counter() - started < budget):
        t0 = time.perf_counter()
        run()
        into.append((time.perf_counter() - t0) * 1000)
        done += 1


def _summary(times: list[float]) -> dict[str, float]:
    times.sort()
    return {
        "p50": statistics.median(times),
        "p99": times[min(len(times) - 1, int(len(times) * 0.99))],
        "reps": len(times),
    }


def main() -> int:
    use_zone("Europe/Rome")
    console = Console()
    table = Table(title="find_free_time over a 2,000-event month (ms)")
    for column in ("measurement", "p50", "p99", "x floor"):
        table.add_column(column, justify="left" if column == "measurement" else "right")
    with tempfile.TemporaryDirectory() as tmp:
        engine = open_database(Path(tmp) / "local.db", "local")
        store = LocalCalendars(engine)
        held = fill(store)
        service = CalendarService(store)
        slots = service.find_free_time(WHOLE)["count"]
        runs = {
            "floor: range read": lambda: store.events(MONTH),
            "query_events (limit 1000)": lambda: service.query_events(
                {"from": "2026-03-01", "to": "2026-03-31", "limit": 1000}
            ),
            "find_free_time: whole days": lambda: service.find_free_time(WHOLE),
            "find_free_time: 09:00-17:00 weekdays": lambda: service.find_free_time(WORKING),
        }
        found = measure(runs)
        engine.dispose()
    floor = found["floor: range read"]["p50"]
    for name, numbers in found.items():
        ratio = numbers["p50"] / floor
        table.add_row(name, f"{numbers['p50']:.2f}", f"{numbers['p99']:.2f}", f"{ratio:.2f}x")
    console.print(table)
    worst = max(v["p50"] for k, v in found.items() if k.startswith("find_free_time")) / floor
    verdict = "PASS" if worst <= TARGET else "FAIL"
    console.print(
        f"{held:,} occurrences in the month; {slots} free slots of 30+ minutes. "
        f"find_free_time within {TARGET:g}x of the range read: {verdict} ({worst:.2f}x)"
    )
    results: dict[str, Any] = {
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "cpus": os.cpu_count(),
        "occurrences": held,
        "measurements": found,
        "worst_ratio": worst,
        "target": TARGET,
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2))
    console.print(f"written to {RESULTS}")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
