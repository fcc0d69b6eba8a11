"""The CalDAV backend against a real Radicale: first full sync of 1,000 to-dos and 2,000 events,
then repeated reads through fruitctl's mirror against the same questions asked of the server
directly with the ``caldav`` library.

Run with ``.venv/bin/python benchmarks/caldav_sync.py`` (``make bench``). Prints a table and the
checks, writes every number to ``benchmarks/results/caldav_sync.json`` and always exits 0: the
numbers are information, not a gate. This is not a test and pytest never collects it.

The data is written straight into Radicale's storage folder (PUTs one by one cost O(n) each in
Radicale); Radicale then builds its own item and sync caches on the first listing, which is timed
separately ("server warm-up") so the first-sync number is fruitctl's and the wire's.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from caldav.collection import Calendar as DavCalendar
from caldav.davclient import DAVClient
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from caldav_server import Account, running_radicale

from fruitctl.backends import caldav
from fruitctl.services.calendar import CalendarService
from fruitctl.services.reminders import RemindersService
from fruitctl.store import open_database

TODOS, EVENTS = 1_000, 2_000
SEED = 20_260_224
BUDGET_S = 2.0  # timing budget per measurement; reps are clamped to [MIN_REPS, MAX_REPS]
MIN_REPS, MAX_REPS = 10, 300
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


@dataclass(frozen=True)
class Check:
    name: str
    value: float
    threshold: float
    passed: bool


# -- data ----------------------------------------------------------------------------------------


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


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


def event_text(i: int, rng: random.Random) -> str:
    lines = [f"UID:bench-event-{i}", f"DTSTAMP:{stamp(NOW)}", f"SUMMARY:meeting {i}"]
    start = NOW.replace(minute=0, second=0) + timedelta(hours=rng.randrange(-24 * 120, 24 * 120))
    if rng.random() < 0.1:
        day = start.date()
        lines += [
            f"DTSTART;VALUE=DATE:{day:%Y%m%d}",
            f"DTEND;VALUE=DATE:{day + timedelta(1):%Y%m%d}",
        ]
    else:
        end = start + timedelta(minutes=rng.choice((30, 60, 90)))
        lines += [f"DTSTART:{stamp(start)}", f"DTEND:{stamp(end)}"]
    if rng.random() < 0.02:
        lines.append("RRULE:FREQ=WEEKLY;COUNT=30")
    return wrap("VEVENT", lines)


def wrap(component: str, lines: Sequence[str]) -> str:
    body = "\r\n".join(lines)
    head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n"
    return f"{head}BEGIN:{component}\r\n{body}\r\nEND:{component}\r\nEND:VCALENDAR\r\n"


def seed(account: Account) -> dict[str, str]:
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
    account.write_items(urls["Calendar"], {f"e{i}.ics": event_text(i, rng) for i in range(EVENTS)})
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


def measure(name: str, call: Callable[[], int]) -> Measurement:
    found = call()  # warm-up (a cache's first fill), and how many results the question has
    started = time.perf_counter()
    call()
    estimate = time.perf_counter() - started
    reps = max(MIN_REPS, min(MAX_REPS, int(BUDGET_S / max(estimate, 1e-9))))
    gc.collect()
    samples = []
    for _ in range(reps):
        begin = time.perf_counter_ns()
        call()
        samples.append((time.perf_counter_ns() - begin) / 1e6)
    return Measurement(name, reps, statistics.median(samples), percentile(samples, 99), found)


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


def run(console: Console, folder: Path) -> tuple[dict[str, float], list[Measurement]]:
    with running_radicale(folder / "radicale") as server:
        account = server.add_account("bench")
        started = time.perf_counter()
        urls = seed(account)
        timings = {"seed_s": time.perf_counter() - started}
        timings["server_warmup_s"] = warm_server(account, urls)
        console.print(f"[dim]seeded {TODOS:,} to-dos and {EVENTS:,} events; server warmed up")
        settings = caldav.Settings(
            account.home, account.username, account.password, staleness_seconds=3600
        )
        engine = open_database(folder / "caldav-cache.db", "local")
        reminders_backend = caldav.reminders(settings, engine)
        calendar_backend = caldav.calendars(settings, engine)
        started = time.perf_counter()
        report = reminders_backend.sync()
        timings["first_sync_s"] = time.perf_counter() - started
        timings["objects_fetched"] = report.fetched
        started = time.perf_counter()
        reminders_backend.sync()
        timings["unchanged_sync_s"] = time.perf_counter() - started
        console.print(f"[dim]first full sync: {timings['first_sync_s']:.2f}s")
        reminders = RemindersService(reminders_backend)
        calendar = CalendarService(calendar_backend)
        results = [measure(f"cached: {n}", c) for n, c in cached_calls(reminders, calendar).items()]
        results += [
            measure(f"direct caldav: {n}", c) for n, c in direct_calls(account, urls).items()
        ]
        fresh = caldav.Settings(
            account.home, account.username, account.password, staleness_seconds=0
        )
        eager = RemindersService(caldav.reminders(fresh, engine))
        results.append(
            measure(
                "cached, staleness 0: open reminders",
                cached_calls(eager, calendar)["open reminders"],
            )
        )
        reminders_backend.close()
        calendar_backend.close()
        engine.dispose()
    return timings, results


def checks(results: Sequence[Measurement]) -> list[Check]:
    by_name = {m.name: m for m in results}
    found = []
    for question in ("open reminders", "upcoming 7 days"):
        cached, direct = by_name[f"cached: {question}"], by_name[f"direct caldav: {question}"]
        ratio = direct.p50_ms / cached.p50_ms
        name = f"cached '{question}' is >= {TARGET:g}x faster than a direct caldav search"
        found.append(Check(name, ratio, TARGET, ratio >= TARGET))
    return found


def print_report(
    console: Console, timings: dict[str, float], results: Sequence[Measurement], found: list[Check]
) -> None:
    console.print(
        f"seed {timings['seed_s']:.2f}s, server warm-up {timings['server_warmup_s']:.2f}s, "
        f"first full sync {timings['first_sync_s']:.2f}s ({int(timings['objects_fetched']):,} "
        f"objects), sync with nothing changed {timings['unchanged_sync_s'] * 1000:.1f} ms"
    )
    table = Table(title="fruitctl caldav: repeated reads, mirror vs server")
    for column in ("measurement", "reps", "p50 ms", "p99 ms", "results"):
        table.add_column(column, justify="left" if column == "measurement" else "right")
    for m in results:
        table.add_row(m.name, str(m.reps), f"{m.p50_ms:,.3f}", f"{m.p99_ms:,.3f}", str(m.results))
    console.print(table)
    for check in found:
        word = "[green]PASS[/]" if check.passed else "[red]FAIL[/]"
        console.print(f"{word}  {check.name}: {check.value:,.1f}x (threshold {check.threshold}x)")


def write_json(
    timings: dict[str, float], results: Sequence[Measurement], found: list[Check]
) -> None:
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
        "timings": timings,
        "results": [asdict(m) for m in results],
        "checks": [asdict(c) for c in found],
    }
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


def main() -> int:
    console = Console()
    if not console.is_terminal:
        console.width = 120
    with tempfile.TemporaryDirectory(prefix="fruitctl-caldav-bench-") as tmp:
        timings, results = run(console, Path(tmp))
    found = checks(results)
    print_report(console, timings, results, found)
    write_json(timings, results, found)
    console.print(f"[dim]results written to {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
