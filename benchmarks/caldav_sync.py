"""The CalDAV backend against a real Radicale, each figure beside the server's own floor measured
in the same run with raw REPORTs over one kept-alive connection.

The fixture is one account: two task lists with 1,000 to-dos and one calendar with 2,000 events,
in two profiles, each run against a Radicale of its own:

- sparse: single events over +-120 days in UTC and in two named zones (with their VTIMEZONE, as
  clients write them), all-day events, weekly and daily series that started up to three years ago
  and never end, some with a moved occurrence (about 290 occurrences a week);
- dense: every occurrence within 60 days, about 33 a day (``tests/dense_calendar.py``, which the
  correctness test reads too): 1,900 single events and 100 series (weekly, weekly on three
  weekdays, daily on weekdays; a third with COUNT, half in Europe/Berlin with its VTIMEZONE, most
  begun weeks before the 60 days).

What is measured:

- staleness 0: ``query_events`` for 7 days when every read first asks the server whether anything
  changed, against one raw calendar-query REPORT of the same 7 days;
- a new window: ``query_events`` on a warm mirror, each time a 7-day window not read before
  (dense: all of them within the 60 days);
- cold: the first ``query_events`` on an empty mirror (which mirrors the to-dos too), against raw
  REPORTs of all events and all to-dos;
- after a change: the next staleness-0 ``query_events`` once another client changed one event;
- repeated reads (open reminders, upcoming) against the same questions asked of the server with
  the ``caldav`` library each time.

Run with ``.venv/bin/python benchmarks/caldav_sync.py [sparse|dense]`` (``make bench``: both).
Prints a table and the
checks, writes every number to ``benchmarks/results/caldav_sync.json`` and exits 1 when a check
fails (``make bench`` runs every benchmark, then fails if any did). This is not a test
and pytest never collects it.

The data is written straight into Radicale's storage folder (PUTs one by one cost O(n) each in
Radicale); Radicale then builds its own item and sync caches on the first listing, which is timed
separately ("server warm-up") so no figure includes it.
"""

from __future__ import annotations

import functools
import gc
import itertools
import json
import os
import platform
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import icalendar
from caldav.collection import Calendar as DavCalendar
from caldav.davclient import DAVClient
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import dense_calendar
from caldav_server import Account, running_radicale
from dense_calendar import recurrence_id, stamp, times

from fruitctl.backends import caldav, ical_events, ical_occurrences
from fruitctl.capabilities.calendar.service import CalendarService
from fruitctl.capabilities.reminders.service import RemindersService
from fruitctl.store import open_database

TODOS, EVENTS = 1_000, 2_000
PROFILES = ("sparse", "dense")
SEED = 20_260_224
BUDGET_S = 2.0  # timing budget per measurement; reps are clamped to [MIN_REPS, MAX_REPS]
MIN_REPS, MAX_REPS = 10, 300
COLD_REPS = 3
TARGET = 50.0  # cached reads should be at least this many times faster than asking the server
RESULTS = Path(__file__).parent / "results" / "caldav_sync.json"
NOW = datetime.now(UTC).replace(microsecond=0)
WORDS = ("call", "email", "buy", "book", "review", "plan", "fix", "pay", "send", "renew")
THINGS = ("dentist", "mom", "invoice", "report", "tickets", "car", "plants", "bank", "slides")


@dataclass(frozen=True)
class Measurement:
    name: str
    reps: int
    p50_ms: float
    p99_ms: float
    results: int
    cpu_p50_ms: float
    """This process's CPU time (user+sys), p50: the machine is shared, and a read that asks
    no server is all CPU."""


@dataclass(frozen=True)
class Check:
    name: str
    value: float
    threshold: float
    unit: str
    comparison: str  # "<=" or ">="

    @property
    def passed(self) -> bool:
        if self.comparison == "<=":
            return self.value <= self.threshold
        return self.value >= self.threshold


# -- data ----------------------------------------------------------------------------------------


def todo_text(i: int, rng: random.Random) -> str:
    lines = [f"UID:bench-todo-{i}", f"DTSTAMP:{stamp(NOW)}", f"CREATED:{stamp(NOW)}"]
    lines.append(f"SUMMARY:{rng.choice(WORDS)} {rng.choice(THINGS)} #{i}")
    if rng.random() < 0.6:
        due = NOW + timedelta(hours=rng.randrange(-24 * 30, 24 * 60))
        lines.append(f"DUE;VALUE=DATE:{due:%Y%m%d}" if rng.random() < 0.4 else f"DUE:{stamp(due)}")
    if rng.random() < 0.3:
        lines += ["STATUS:COMPLETED", f"COMPLETED:{stamp(NOW - timedelta(days=1))}"]
    if rng.random() < 0.3:
        lines.append(f"PRIORITY:{rng.choice((1, 5, 9))}")
    if rng.random() < 0.2:
        lines.append("CATEGORIES:next,@calls")
    return wrap("VTODO", lines)


ZONES = ("Europe/Rome", "America/New_York")
WEEK = timedelta(days=7)


@functools.cache
def vtimezone(zone: str) -> str:
    """The VTIMEZONE a client writes beside times in ``zone``."""
    block = icalendar.Timezone.from_tzinfo(
        ZoneInfo(zone), first_date=date(NOW.year - 4, 1, 1), last_date=date(NOW.year + 4, 1, 1)
    )
    return block.to_ical().decode()


def event_text(i: int, rng: random.Random) -> str:
    """One calendar object: about 84% single events (a tenth of them all-day, a tenth in a named
    zone), 5% weekly series, 1% daily series (both started up to three years ago, most without
    end, a few with a moved occurrence). A 7-day window holds about 290 occurrences."""
    uid = f"bench-event-{i}"
    lines = [f"UID:{uid}", f"DTSTAMP:{stamp(NOW)}", f"SUMMARY:meeting {i}"]
    hour = NOW.replace(minute=0, second=0)
    roll = rng.random()
    zone: str | None = None
    extra = ""
    if roll < 0.06:  # a series
        daily = roll < 0.01
        start = hour - timedelta(days=rng.randrange(1, 3 * 365))
        zone = rng.choice(ZONES) if rng.random() < 0.5 else None
        lines += times(start, timedelta(minutes=30), zone)
        count = ";COUNT=2000" if rng.random() < 0.2 else ""
        lines.append(f"RRULE:FREQ={'DAILY' if daily else 'WEEKLY'}{count}")
        if not daily and rng.random() < 0.2:  # next week's occurrence moved by two hours
            step = (NOW - start) // WEEK + 1
            original = start + step * WEEK
            moved = [f"UID:{uid}", f"DTSTAMP:{stamp(NOW)}", f"SUMMARY:meeting {i} (moved)"]
            moved += [recurrence_id(original, zone)]
            moved += times(original + timedelta(hours=2), timedelta(minutes=30), zone)
            extra = component("VEVENT", moved)
    else:
        start = hour + timedelta(hours=rng.randrange(-24 * 120, 24 * 120))
        if roll < 0.16:
            day = start.date()
            lines += [
                f"DTSTART;VALUE=DATE:{day:%Y%m%d}",
                f"DTEND;VALUE=DATE:{day + timedelta(1):%Y%m%d}",
            ]
        else:
            zone = rng.choice(ZONES) if roll < 0.26 else None
            lines += times(start, timedelta(minutes=rng.choice((30, 60, 90))), zone)
    timezones = vtimezone(zone) if zone else ""
    return wrap("VEVENT", lines, timezones + extra)


def component(name: str, lines: Sequence[str]) -> str:
    return f"BEGIN:{name}\r\n" + "\r\n".join(lines) + f"\r\nEND:{name}\r\n"


def wrap(name: str, lines: Sequence[str], more: str = "") -> str:
    head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n"
    return f"{head}{more}{component(name, lines)}END:VCALENDAR\r\n"


def seed(account: Account, profile: str) -> dict[str, str]:
    """Two task lists and one calendar, filled in bulk through the storage folder."""
    rng = random.Random(SEED)
    urls = {
        "Reminders": account.make_calendar("Reminders", ["VTODO"]),
        "Work": account.make_calendar("Work", ["VTODO"]),
        "Calendar": account.make_calendar("Calendar", ["VEVENT"]),
    }
    split = int(TODOS * 0.7)
    todos = {i: todo_text(i, rng) for i in range(TODOS)}
    account.write_items(urls["Reminders"], {f"t{i}.ics": t for i, t in todos.items() if i < split})
    account.write_items(urls["Work"], {f"t{i}.ics": t for i, t in todos.items() if i >= split})
    if profile == "dense":
        texts = dense_calendar.events(NOW, SEED)
    else:
        texts = [event_text(i, rng) for i in range(EVENTS)]
    account.write_items(urls["Calendar"], {f"e{i}.ics": text for i, text in enumerate(texts)})
    return urls


def warm_server(account: Account, urls: dict[str, str]) -> float:
    """Let Radicale build its caches of the bulk-written items (a listing and a sync report)."""
    started = time.perf_counter()
    body = '<sync-collection xmlns="DAV:"><sync-token/><prop><getetag/></prop></sync-collection>'
    with httpx.Client(auth=account.auth, timeout=600) as client:
        for url in urls.values():
            client.request("PROPFIND", url, headers={"Depth": "1"}).raise_for_status()
            client.request("REPORT", url, content=body).raise_for_status()
    return time.perf_counter() - started


# -- timing --------------------------------------------------------------------------------------


def percentile(samples: Sequence[float], pct: int) -> float:
    if len(samples) < 2:
        return samples[0]
    return statistics.quantiles(samples, n=100, method="inclusive")[pct - 1]


def measure(
    name: str,
    call: Callable[[], int],
    prepare: Callable[[], object] | None = None,
    most: int = MAX_REPS,
) -> Measurement:
    """p50/p99 of ``call`` (``prepare``, untimed, before each), at most ``most`` times after
    two untimed calls."""
    found = call()  # warm-up (a cache's first fill), and how many results the question has
    started = time.perf_counter()
    call()
    estimate = time.perf_counter() - started
    reps = max(MIN_REPS, min(most, int(BUDGET_S / max(estimate, 1e-9))))
    gc.collect()
    samples, cpu = [], []
    for _ in range(reps):
        if prepare is not None:
            prepare()
        begin, begin_cpu = time.perf_counter_ns(), time.process_time_ns()
        call()
        samples.append((time.perf_counter_ns() - begin) / 1e6)
        cpu.append((time.process_time_ns() - begin_cpu) / 1e6)
    p50, p99 = statistics.median(samples), percentile(samples, 99)
    return Measurement(name, reps, p50, p99, found, statistics.median(cpu))


QUERY = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
    "<D:prop><D:getetag/><C:calendar-data/></D:prop>"
    '<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="{component}">{range}'
    "</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>"
)


class Floor:
    """The server's own cost: raw calendar-query REPORTs on one kept-alive connection, with
    credentials on the first request - what no client of this server can beat."""

    def __init__(self, account: Account, urls: dict[str, str]) -> None:
        self.client = httpx.Client(auth=account.auth, timeout=600)
        self.urls = urls

    def report(self, url: str, component: str, window: str = "") -> int:
        body = QUERY.format(component=component, range=window)
        answer = self.client.request("REPORT", url, content=body, headers={"Depth": "1"})
        answer.raise_for_status()
        return answer.text.count("BEGIN:VCALENDAR")

    def week(self) -> int:
        """The events overlapping the next 7 days, as one REPORT."""
        start = datetime.now(UTC)
        window = f'<C:time-range start="{stamp(start)}" end="{stamp(start + WEEK)}"/>'
        return self.report(self.urls["Calendar"], "VEVENT", window)

    def everything(self) -> int:
        """Every event and every to-do: one REPORT per collection."""
        lists = sum(self.report(self.urls[name], "VTODO") for name in ("Reminders", "Work"))
        return lists + self.report(self.urls["Calendar"], "VEVENT")

    def close(self) -> None:
        self.client.close()


def direct_calls(account: Account, urls: dict[str, str]) -> dict[str, Callable[[], int]]:
    """The same two questions asked of the server with the caldav library, every time."""
    client = DAVClient(url=account.home, username=account.username, password=account.password)
    lists = [DavCalendar(client=client, url=urls[name]) for name in ("Reminders", "Work")]
    events = DavCalendar(client=client, url=urls["Calendar"])

    def open_todos() -> int:
        return sum(len(cal.search(todo=True)) for cal in lists)

    def upcoming() -> int:
        now = datetime.now(UTC)
        return len(events.search(event=True, start=now, end=now + timedelta(days=7), expand=True))

    return {"open reminders": open_todos, "upcoming 7 days": upcoming}


def cached_calls(
    reminders: RemindersService, calendar: CalendarService
) -> dict[str, Callable[[], int]]:
    def open_todos() -> int:
        return len(reminders.open_reminders({"limit": 500})["items"])

    def upcoming() -> int:
        return len(calendar.upcoming({"days": 7, "limit": 500})["events"])

    return {"open reminders": open_todos, "upcoming 7 days": upcoming}


# -- the run -------------------------------------------------------------------------------------


def settings(account: Account, staleness: float) -> caldav.Settings:
    return caldav.Settings(
        account.home, account.username, account.password, staleness_seconds=staleness
    )


def cold_reads(account: Account, folder: Path) -> Measurement:
    """The first ``query_events`` on an empty mirror, a new mirror file each time, with the
    parsed objects and expanded series a new process would not have either."""
    samples, cpu, found = [], [], 0
    for rep in range(COLD_REPS):
        ical_events.parsed.cache_clear()
        ical_occurrences.timeline.cache_clear()
        engine = open_database(folder / f"cold-{rep}.db", "local")
        backend = caldav.calendars(settings(account, 3600), engine)
        begin, begin_cpu = time.perf_counter_ns(), time.process_time_ns()
        found = len(CalendarService(backend).query_events({})["events"])
        samples.append((time.perf_counter_ns() - begin) / 1e6)
        cpu.append((time.process_time_ns() - begin_cpu) / 1e6)
        backend.close()
        engine.dispose()
    return Measurement(
        "cold: first query_events, empty mirror",
        COLD_REPS,
        statistics.median(samples),
        max(samples),
        found,
        statistics.median(cpu),
    )


def new_windows(calendar: CalendarService, profile: str) -> tuple[Callable[[], int], int]:
    """A 7-day window never read before at each call: each starts a day after the last one,
    from 150 days back (dense: from the first of its 60 days, all within them); and how many
    such windows there are."""
    if profile == "dense":
        first, last = dense_calendar.span(NOW)
        first += timedelta(hours=NOW.hour)  # not midnight: a window takes in part of 8 days
        windows = (last - first - WEEK).days
    else:
        first, windows = datetime.now(UTC) - timedelta(days=150), MAX_REPS + 2
    shift = itertools.count()

    def read() -> int:
        start = first + timedelta(days=next(shift))
        window = {"from": start.isoformat(), "to": (start + WEEK).isoformat(), "limit": 500}
        return len(calendar.query_events(window)["events"])

    return read, windows


def another_client_changes(account: Account, urls: dict[str, str]) -> Callable[[], object]:
    """A PUT by another client of one event, a new title each time."""
    url = urls["Calendar"] + "e0.ics"
    text, _ = account.get(url)
    edits = itertools.count()

    def change() -> object:
        title = re.search(r"^SUMMARY:.*$", text, re.M)
        assert title is not None
        changed = text.replace(title.group(0), f"{title.group(0)} (edit {next(edits)})")
        return account.put(url, changed)

    return change


def run(console: Console, folder: Path, profile: str) -> tuple[dict[str, float], list[Measurement]]:
    with running_radicale(folder / "radicale") as server:
        account = server.add_account("bench")
        started = time.perf_counter()
        urls = seed(account, profile)
        timings = {"seed_s": time.perf_counter() - started}
        timings["server_warmup_s"] = warm_server(account, urls)
        console.print(
            f"[dim]{profile}: seeded {TODOS:,} to-dos and {EVENTS:,} events; server warmed up"
        )
        floor = Floor(account, urls)
        results = [
            measure("floor: raw REPORT, events of 7 days", floor.week),
            measure("floor: raw REPORTs, all events and to-dos", floor.everything),
        ]
        floor.close()
        results.append(cold_reads(account, folder))
        console.print(f"[dim]cold read: {results[-1].p50_ms / 1000:.2f}s")

        engine = open_database(folder / "caldav-cache.db", "local")
        reminders_backend = caldav.reminders(settings(account, 3600), engine)
        calendar_backend = caldav.calendars(settings(account, 3600), engine)
        started = time.perf_counter()
        report = reminders_backend.sync()
        timings["first_sync_s"] = time.perf_counter() - started
        timings["objects_fetched"] = report.fetched
        started = time.perf_counter()
        reminders_backend.sync()
        timings["unchanged_sync_s"] = time.perf_counter() - started
        reminders = RemindersService(reminders_backend)
        calendar = CalendarService(calendar_backend)
        results += [
            measure(f"cached: {n}", c) for n, c in cached_calls(reminders, calendar).items()
        ]
        read, windows = new_windows(calendar, profile)
        results.append(measure("warm: query_events, a new 7-day window", read, most=windows - 2))

        eager_backend = caldav.calendars(settings(account, 0), engine)
        eager = CalendarService(eager_backend)
        week = lambda: len(eager.query_events({"limit": 500})["events"])  # noqa: E731
        results.append(measure("staleness 0: query_events, 7 days", week))
        change = another_client_changes(account, urls)
        results.append(measure("staleness 0: query_events after a change", week, change))

        results += [
            measure(f"direct caldav: {n}", c) for n, c in direct_calls(account, urls).items()
        ]
        for backend in (reminders_backend, calendar_backend, eager_backend):
            backend.close()
        engine.dispose()
    return timings, results


def checks(profile: str, results: Sequence[Measurement]) -> list[Check]:
    by_name = {m.name: m.p50_ms for m in results}
    week = by_name["floor: raw REPORT, events of 7 days"]
    everything = by_name["floor: raw REPORTs, all events and to-dos"]
    found = [
        Check(
            "staleness-0 7-day query_events / one raw REPORT of the same 7 days",
            by_name["staleness 0: query_events, 7 days"] / week,
            1.0,
            "x",
            "<=",
        ),
        Check(
            "cold first query_events / raw REPORTs of all events and to-dos",
            by_name["cold: first query_events, empty mirror"] / everything,
            3.0,
            "x",
            "<=",
        ),
        Check(
            "warm query_events of a new 7-day window, p50",
            by_name["warm: query_events, a new 7-day window"],
            15.0,
            " ms",
            "<=",
        ),
    ]
    for question in ("open reminders", "upcoming 7 days"):
        ratio = by_name[f"direct caldav: {question}"] / by_name[f"cached: {question}"]
        name = f"direct caldav search / cached '{question}'"
        found.append(Check(name, ratio, TARGET, "x", ">="))
    return [replace(check, name=f"{profile}: {check.name}") for check in found]


def print_report(
    console: Console,
    profile: str,
    timings: dict[str, float],
    results: Sequence[Measurement],
    found: list[Check],
) -> None:
    console.print(
        f"{profile}: "
        f"seed {timings['seed_s']:.2f}s, server warm-up {timings['server_warmup_s']:.2f}s, "
        f"full sync into a warm mirror {timings['first_sync_s']:.2f}s "
        f"({int(timings['objects_fetched']):,} objects), sync with nothing changed "
        f"{timings['unchanged_sync_s'] * 1000:.1f} ms"
    )
    table = Table(title=f"fruitctl caldav against the server's floor ({profile} calendar)")
    for column in ("measurement", "reps", "p50 ms", "p99 ms", "cpu p50 ms", "results"):
        table.add_column(column, justify="left" if column == "measurement" else "right")
    for m in results:
        times = (m.p50_ms, m.p99_ms, m.cpu_p50_ms)
        table.add_row(m.name, str(m.reps), *(f"{t:,.3f}" for t in times), str(m.results))
    console.print(table)
    for check in found:
        word = "[green]PASS[/]" if check.passed else "[red]FAIL[/]"
        console.print(
            f"{word}  {check.name}: {check.value:,.2f}{check.unit} "
            f"(target {check.comparison} {check.threshold:g}{check.unit})"
        )


Outcome = tuple[dict[str, float], list[Measurement], list[Check]]


def write_json(outcomes: dict[str, Outcome]) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {
        "benchmark": "caldav_sync",
        "generated_at": datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": {
            "python": sys.version.split()[0],
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
        },
        "config": {"todos": TODOS, "events": EVENTS, "seed": SEED, "budget_s": BUDGET_S},
        "profiles": {
            profile: {
                "timings": timings,
                "results": [asdict(m) for m in results],
                "checks": [{**asdict(c), "passed": c.passed} for c in found],
            }
            for profile, (timings, results, found) in outcomes.items()
        },
    }
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


def main() -> int:
    console = Console()
    if not console.is_terminal:
        console.width = 120
    wanted = [p for p in PROFILES if p in sys.argv[1:]] or list(PROFILES)
    outcomes: dict[str, Outcome] = {}
    for profile in wanted:
        with tempfile.TemporaryDirectory(prefix="fruitctl-caldav-bench-") as tmp:
            timings, results = run(console, Path(tmp), profile)
        outcomes[profile] = (timings, results, checks(profile, results))
        print_report(console, profile, *outcomes[profile])
    write_json(outcomes)
    console.print(f"[dim]results written to {RESULTS}")
    return 0 if all(c.passed for *_, found in outcomes.values() for c in found) else 1


if __name__ == "__main__":
    sys.exit(main())
