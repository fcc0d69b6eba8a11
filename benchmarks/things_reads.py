"""How Things reads cost against the floor: the same rows fetched with raw SQL on the same file.

Run with ``.venv/bin/python benchmarks/things_reads.py`` (``make bench``). It builds a Things-schema
database (the tests' layout, in WAL mode) with 1k, 5k and 20k to-dos spread over the app's views,
projects, headings, areas, tags and checklists, then times, at each size:

- ``floor: raw sqlite3``: the open to-dos of one view's columns in plain SQL, one connection
  already open (the least a read can cost);
- ``reader: today``: ``ThingsDatabase.todos(today, "today")`` - a read-only connection opened,
  schema checked, tags, checklists and titles joined, closed;
- ``service: query_todos``: the tool's whole answer (filters, wire dicts);
- ``service: get_todo``: one to-do by id.

Prints a table, writes ``benchmarks/results/things_reads.json`` and always exits 0: the numbers
are information, not a gate.
"""

from __future__ import annotations

import json
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from things_fixture import build, packed, stamp

from fruitctl.backends.things import ThingsDatabase
from fruitctl.capabilities.things.service import GetToDo, QueryToDos, ThingsService

SIZES = (1_000, 5_000, 20_000)
SEED = 20_261_124
BUDGET_S = 1.0
MIN_REPS, MAX_REPS = 10, 200
RESULTS = Path(__file__).parent / "results" / "things_reads.json"
TODAY = date.today()
FLOOR_SQL = """
SELECT uuid, title, notes, status, start, startDate, deadline, stopDate, creationDate,
       userModificationDate, area, project, heading
FROM TMTask WHERE type = 0 AND trashed = 0 AND status = 0 AND startDate IS NOT NULL
  AND startDate <= ?
"""


def seed(folder: Path, size: int) -> Path:
    fixture = build(folder)
    rng = random.Random(SEED + size)
    rows: list[tuple[Any, ...]] = []
    tags: list[tuple[str, str]] = []
    checklist: list[tuple[str, str, str, int, int]] = []
    for n in range(size):
        uuid = f"bench-{n:06d}"
        start = rng.choice((0, 1, 1, 1, 2))
        scheduled = rng.random() < 0.3
        day = TODAY + timedelta(days=rng.randint(-10, 30))
        status = 3 if rng.random() < 0.4 else 0
        rows.append(
            (
                uuid,
                status,
                f"to-do {n}",
                "notes" if n % 3 == 0 else "",
                start,
                packed(day) if scheduled else None,
                packed(day) if rng.random() < 0.1 else None,
                stamp(TODAY - timedelta(days=1)) if status else None,
                stamp(TODAY - timedelta(days=rng.randint(1, 400))),
                "proj-move" if n % 7 == 0 else None,
                "area-home" if n % 11 == 0 else None,
                n,
            )
        )
        if n % 4 == 0:
            tags.append((uuid, "tag-errand"))
        if n % 9 == 0:
            checklist += [(f"c{n}a", uuid, "first", 0, 0), (f"c{n}b", uuid, "second", 3, 1)]
    with sqlite3.connect(fixture.path) as db:
        db.executemany(
            "INSERT INTO TMTask (uuid, type, status, trashed, title, notes, start, startDate, "
            'deadline, stopDate, creationDate, userModificationDate, project, area, "index", '
            "todayIndex) VALUES (?, 0, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
            [(*r[:9], r[8], *r[9:]) for r in rows],
        )
        db.executemany("INSERT INTO TMTaskTag VALUES (?, ?)", tags)
        db.executemany(
            'INSERT INTO TMChecklistItem (uuid, task, title, status, "index") '
            "VALUES (?, ?, ?, ?, ?)",
            checklist,
        )
    return fixture.path


def measure(run: Callable[[], object]) -> dict[str, float]:
    for _ in range(3):
        run()
    times: list[float] = []
    started = time.perf_counter()
    while len(times) < MIN_REPS or (
        len(times) < MAX_REPS and time.perf_counter() - started < BUDGET_S
    ):
        t0 = time.perf_counter()
        run()
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return {
        "p50": statistics.median(times),
        "p99": times[min(len(times) - 1, int(len(times) * 0.99))],
        "reps": len(times),
    }


def main() -> int:
    console = Console()
    results: dict[str, Any] = {
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "cpus": __import__("os").cpu_count(),
        "sizes": {},
    }
    table = Table(title="Things reads (ms)")
    for column in ("size", "measurement", "p50", "p99", "x floor"):
        table.add_column(column, justify="left" if column == "measurement" else "right")
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            path = seed(Path(tmp) / str(size), size)
            database = ThingsDatabase(path)
            service = ThingsService(database)
            floor_db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            runs = {
                "floor: raw sqlite3": lambda db=floor_db: db.execute(
                    FLOOR_SQL, (packed(TODAY),)
                ).fetchall(),
                "reader: today": lambda d=database: d.todos(TODAY, "today"),
                "service: query_todos": lambda s=service: s.query_todos(QueryToDos(view="today")),
                "service: get_todo": lambda s=service: s.get_todo(GetToDo(id="bench-000500")),
            }
            found = {name: measure(run) for name, run in runs.items()}
            floor_db.close()
            floor = found["floor: raw sqlite3"]["p50"]
            for name, numbers in found.items():
                table.add_row(
                    f"{size:,}",
                    name,
                    f"{numbers['p50']:.2f}",
                    f"{numbers['p99']:.2f}",
                    f"{numbers['p50'] / floor:.1f}x",
                )
            results["sizes"][str(size)] = found
    console.print(table)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2))
    console.print(f"written to {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
