"""How reminder reads scale with the size of the local store (1k, 10k, 100k reminders).

Run with ``.venv/bin/python benchmarks/store_scale.py`` (``make bench``). Prints a table and two
checks, writes every number to ``benchmarks/results/store_scale.json`` and exits 1 when a check
fails (``make bench`` runs every benchmark, then fails if any did). This is not a test
and pytest never collects it.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from functools import partial
from pathlib import Path
from typing import Any

import jmespath
import sqlalchemy
from rich.console import Console
from rich.table import Table

from fruitctl.backends.local import LocalReminders
from fruitctl.capabilities.reminders.service import RemindersService
from fruitctl.ports import NewReminder, ReminderQuery, ReminderScope
from fruitctl.store import open_database

SIZES = (1_000, 10_000, 100_000)
SEED = 20_260_224
CHUNK = 5_000  # reminders per LocalReminders.create call while seeding
BUDGET_S = 1.5  # timing budget per measurement; reps are clamped to [MIN_REPS, MAX_REPS]
MIN_REPS, MAX_REPS = 15, 200
WARMUP_CALLS, WARMUP_S = 3, 0.25
RESULTS = Path(__file__).parent / "results" / "store_scale.json"

FILTERS = {
    "prio+call": "[?priority == `1` && contains(title, 'call')]",
    "tag next": "[?contains(tags, 'next')]",
}
FLOOR = "floor: raw sqlite3"
DEFAULT = "service: default query"
OPEN = "service: open view"

# Realistic-looking data: where reminders live, how they look.
OTHER_LISTS = ("Work", "Home", "Shopping", "Someday")
LIST_WEIGHTS = (60, 12, 12, 10, 6)  # default list first, then OTHER_LISTS
PRIORITIES = (0, 1, 5, 9)
PRIORITY_WEIGHTS = (55, 15, 15, 15)
TAGS = ("@calls", "@errands", "next", "waiting")
VERBS = (
    *("call", "email", "buy", "book", "review", "plan", "fix", "pay", "send", "renew"),
    *("clean", "schedule", "recall", "draft", "water", "return", "check", "order"),
)
OBJECTS = (
    *("dentist", "mom", "invoice", "report", "tickets", "car", "plants", "insurance"),
    *("library books", "passport", "groceries", "slides", "budget", "plumber", "bank"),
)
BASE = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ZONES = (UTC, timezone(timedelta(hours=1)), timezone(timedelta(hours=-5)))

FLOOR_SQL = """
SELECT r.id, r.list_id, r.title, r.notes, r.is_completed, r.priority, r.is_flagged, r.due,
       r.due_sort, r.completion, r.created, r.created_sort, r.modified, r.url, r.parent_id,
       r.recurrence, l.name AS list_name
FROM reminders AS r JOIN lists AS l ON l.id = r.list_id
WHERE r.list_id = ? AND r.is_completed = 0
ORDER BY r.created_sort DESC, r.id DESC
LIMIT 50
"""


@dataclass(frozen=True)
class Measurement:
    size: int
    name: str
    reps: int
    p50_ms: float
    p99_ms: float
    ratio_to_floor: float


@dataclass(frozen=True)
class Check:
    name: str
    value: float
    threshold: float
    passed: bool


# -- seeding -----------------------------------------------------------------------------------


def random_due(rng: random.Random) -> date | datetime | None:
    roll = rng.random()
    if roll < 0.5:
        return None
    moment = BASE + timedelta(minutes=rng.randrange(-60 * 24 * 30, 60 * 24 * 90, 15))
    if roll < 0.7:
        return moment.date()
    return moment.astimezone(rng.choice(ZONES))


def random_reminder(rng: random.Random, list_ids: Sequence[str]) -> NewReminder:
    title = f"{rng.choice(VERBS)} {rng.choice(OBJECTS)}"
    done = rng.random() >= 0.7
    return NewReminder(
        list_id=rng.choices(list_ids, weights=LIST_WEIGHTS)[0],
        title=title if rng.random() < 0.8 else f"{title} #{rng.randrange(1000)}",
        notes=f"Notes about {title}.\nSecond line." if rng.random() < 0.2 else None,
        priority=rng.choices(PRIORITIES, weights=PRIORITY_WEIGHTS)[0],
        due=random_due(rng),
        completion=BASE - timedelta(hours=rng.randrange(1, 2000)) if done else None,
        tags=tuple(tag for tag in TAGS if rng.random() < 0.2),
        is_flagged=rng.random() < 0.1,
    )


def seed_store(backend: LocalReminders, size: int, rng: random.Random) -> None:
    default_id = backend.lists()[0].id
    list_ids = [default_id, *(backend.create_list(name).id for name in OTHER_LISTS)]
    for start in range(0, size, CHUNK):
        count = min(CHUNK, size - start)
        backend.create([random_reminder(rng, list_ids) for _ in range(count)])


@contextmanager
def seeded_store(size: int) -> Iterator[tuple[Path, LocalReminders]]:
    with tempfile.TemporaryDirectory(prefix="fruitctl-bench-") as tmp:
        path = Path(tmp) / "local.db"
        engine = open_database(path, "local")
        try:
            backend = LocalReminders(engine)
            seed_store(backend, size, random.Random(SEED + size))
            yield path, backend
        finally:
            engine.dispose()


# -- timing ------------------------------------------------------------------------------------


def warm_up(call: Callable[[], object]) -> float:
    """Run ``call`` a few times (fewer when slow); return the seconds of one call."""
    started = time.perf_counter()
    calls = 0
    while calls < WARMUP_CALLS and (calls == 0 or time.perf_counter() - started < WARMUP_S):
        call()
        calls += 1
    return (time.perf_counter() - started) / calls


def percentile(samples: Sequence[float], pct: int) -> float:
    if len(samples) < 2:
        return samples[0]
    return statistics.quantiles(samples, n=100, method="inclusive")[pct - 1]


def time_call(call: Callable[[], object]) -> list[float]:
    """Milliseconds per call, with as many reps as ``BUDGET_S`` allows (within the clamp)."""
    estimate = warm_up(call)
    reps = max(MIN_REPS, min(MAX_REPS, int(BUDGET_S / max(estimate, 1e-9))))
    gc.collect()
    samples: list[float] = []
    for _ in range(reps):
        started = time.perf_counter_ns()
        call()
        samples.append((time.perf_counter_ns() - started) / 1e6)
    return samples


# -- the measurements --------------------------------------------------------------------------


def floor_call(conn: sqlite3.Connection, default_id: str) -> Callable[[], object]:
    """The default query in plain SQL on a plain connection: the least any read can cost."""

    def run() -> list[Any]:
        return conn.execute(FLOOR_SQL, (default_id,)).fetchall()

    return run


def wire_data(backend: LocalReminders, default_id: str) -> list[dict[str, Any]]:
    """What the service evaluates without pushdown: the default list's incomplete reminders."""
    scope = ReminderScope((default_id,), "incomplete")
    return [r.to_wire() for r in backend.fetch(ReminderQuery(scope, "newest"))]


def service_calls(backend: LocalReminders) -> dict[str, Callable[[], object]]:
    on, off = RemindersService(backend), RemindersService(backend, pushdown=False)
    calls: dict[str, Callable[[], object]] = {
        DEFAULT: lambda: on.query_reminders({}),
        OPEN: lambda: on.open_reminders({}),
    }
    for label, expr in FILTERS.items():
        calls[f"{label}: pushdown on"] = partial(on.query_reminders, {"query": expr})
        calls[f"{label}: pushdown off"] = partial(off.query_reminders, {"query": expr})
    return calls


def memory_calls(data: list[dict[str, Any]]) -> dict[str, Callable[[], object]]:
    return {
        f"{label}: jmespath in-memory": partial(jmespath.search, expr, data)
        for label, expr in FILTERS.items()
    }


def measure_size(size: int, console: Console) -> tuple[list[Measurement], int]:
    """Every measurement at one store size, and how many reminders the default scope holds."""
    started = time.perf_counter()
    with seeded_store(size) as (path, backend):
        console.print(f"[dim]seeded {size:,} reminders in {time.perf_counter() - started:.1f}s")
        default_id = backend.lists()[0].id
        data = wire_data(backend, default_id)
        with closing(sqlite3.connect(path)) as conn:
            samples = {FLOOR: time_call(floor_call(conn, default_id))}
        for name, call in {**service_calls(backend), **memory_calls(data)}.items():
            samples[name] = time_call(call)
    console.print(f"[dim]measured {size:,} in {time.perf_counter() - started:.1f}s total")
    return summarize(size, samples), len(data)


def summarize(size: int, samples: dict[str, list[float]]) -> list[Measurement]:
    floor = statistics.median(samples[FLOOR])
    return [
        Measurement(
            size=size,
            name=name,
            reps=len(values),
            p50_ms=statistics.median(values),
            p99_ms=percentile(values, 99),
            ratio_to_floor=statistics.median(values) / floor,
        )
        for name, values in samples.items()
    ]


# -- checks and reporting ----------------------------------------------------------------------


def p50(results: Sequence[Measurement], size: int, name: str) -> float | None:
    found = [m.p50_ms for m in results if m.size == size and m.name == name]
    return found[0] if found else None


def checks(results: Sequence[Measurement]) -> list[Check]:
    found: list[Check] = []
    small, large = p50(results, min(SIZES), DEFAULT), p50(results, max(SIZES), DEFAULT)
    if small and large:
        name = f"default query at {max(SIZES):,} is within 2x of {min(SIZES):,}"
        found.append(Check(name, large / small, 2.0, large / small <= 2.0))
    for size in (s for s in SIZES if s >= 10_000):
        for label in FILTERS:
            on = p50(results, size, f"{label}: pushdown on")
            off = p50(results, size, f"{label}: pushdown off")
            if on and off:
                name = f"pushdown is >=10x faster than in-memory ({label}, {size:,})"
                found.append(Check(name, off / on, 10.0, off / on >= 10.0))
    return found


def print_table(console: Console, results: Sequence[Measurement]) -> None:
    table = Table(title="fruitctl local store: reads by store size")
    for column in ("size", "measurement", "reps", "p50 ms", "p99 ms", "ratio to floor"):
        table.add_column(
            column, justify="left" if column == "measurement" else "right", no_wrap=True
        )
    for i, m in enumerate(results):
        if i and m.size != results[i - 1].size:
            table.add_section()
        table.add_row(
            f"{m.size:,}",
            m.name,
            str(m.reps),
            f"{m.p50_ms:,.3f}",
            f"{m.p99_ms:,.3f}",
            f"{m.ratio_to_floor:,.1f}x",
        )
    console.print(table)


def print_checks(console: Console, found: Sequence[Check]) -> None:
    for check in found:
        word = "[green]PASS[/]" if check.passed else "[red]FAIL[/]"
        console.print(f"{word}  {check.name}: {check.value:,.2f}x (threshold {check.threshold}x)")


def machine() -> dict[str, Any]:
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "sqlite": sqlite3.sqlite_version,
        "sqlalchemy": sqlalchemy.__version__,
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "machine": platform.machine(),
    }


def write_json(
    results: Sequence[Measurement], found: Sequence[Check], in_scope: dict[int, int]
) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "benchmark": "store_scale",
        "generated_at": datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": machine(),
        "config": {
            "sizes": list(SIZES),
            "seed": SEED,
            "budget_s": BUDGET_S,
            "reps": [MIN_REPS, MAX_REPS],
            "filters": FILTERS,
            "default_scope_rows": {str(k): v for k, v in in_scope.items()},
        },
        "results": [asdict(m) for m in results],
        "checks": [asdict(c) for c in found],
    }
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


def main() -> int:
    console = Console()
    if not console.is_terminal:  # piped or in CI: do not squeeze the table into 80 columns
        console.width = 120
    results: list[Measurement] = []
    in_scope: dict[int, int] = {}
    for size in SIZES:
        measured, in_scope[size] = measure_size(size, console)
        results.extend(measured)
    print_table(console, results)
    found = checks(results)
    print_checks(console, found)
    write_json(results, found, in_scope)
    console.print(f"[dim]results written to {RESULTS}")
    return 0 if all(c.passed for c in found) else 1


if __name__ == "__main__":
    sys.exit(main())
