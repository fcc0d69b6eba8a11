"""How Things reads cost against their floor: the same view read with raw SQL on the same file.

Run with ``.venv/bin/python benchmarks/things_reads.py`` (``make bench``). It builds a Things-schema
database (the tests' layout, in WAL mode) with 1k, 5k and 20k to-dos spread over the app's views,
projects, headings, areas, tags and checklists, then times, at each size and for Today, Upcoming
and Anytime:

- ``floor: raw SQL``: a read-only ``sqlite3`` connection opened, the view's to-dos fetched with
  plain SQL (the joins a view cannot do without: a to-do's heading and project, for the Trash and
  for a project not yet started), closed - fruitctl opens one connection per read too, so the
  floor does as well;
- ``query_todos``: the tool's whole answer (the default page of 200, with the view's total);
- ``reader: every to-do``: ``ThingsDatabase.todos(today, view)``, every to-do of the view built.

Target: ``query_todos`` within 3x of its view's floor at 20k to-dos, for each view. Prints a
table, writes ``benchmarks/results/things_reads.json``, and exits 1 when a target is missed.
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
VIEWS = ("today", "upcoming", "anytime")
TARGET = 3.0  # query_todos against its view's floor, at the largest size
# A view's to-dos in plain SQL ("?" = today, packed): the to-do's own columns, and its project's
# start, which decides where the app shows the to-dos of a project not yet started.
FLOOR_SQL = """
SELECT t.uuid, t.title, t.notes, t.status, t.start, t.startDate, t.deadline, t.stopDate,
       t.creationDate, t.userModificationDate, t.area, t.project, t.heading, p.start, p.startDate
FROM TMTask t
LEFT JOIN TMTask h ON h.uuid = t.heading
LEFT JOIN TMTask p ON p.uuid = COALESCE(t.project, h.project)
WHERE t.type = 0 AND t.trashed = 0 AND COALESCE(h.trashed, 0) = 0
  AND COALESCE(p.trashed, 0) = 0 AND t.rt1_recurrenceRule IS NULL AND t.status = 0 AND {view}
"""
FLOOR_VIEWS = {
    "today": "t.start != 0 AND COALESCE(p.start, 0) != 2"
    " AND (t.startDate <= :now OR (t.startDate IS NULL AND t.deadline <= :now))",
    "upcoming": "t.start != 0 AND (t.startDate > :now OR (p.start = 2 AND p.startDate > :now))",
    "anytime": "t.start = 1 AND t.startDate IS NULL AND (t.deadline IS NULL OR t.deadline > :now)"
    " AND COALESCE(p.start, 0) != 2",
}


def floor(path: Path, view: str) -> Callable[[], object]:
    sql = FLOOR_SQL.format(view=FLOOR_VIEWS[view])

    def read() -> object:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return db.execute(sql, {"now": packed(TODAY)}).fetchall()
        finally:
            db.close()

    return read


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
        "target": TARGET,
        "sizes": {},
    }
    table = Table(title="Things reads (ms)")
    for column in ("size", "view", "measurement", "rows", "p50", "p99", "x floor"):
        table.add_column(column, justify="left" if column in ("view", "measurement") else "right")
    verdicts: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            path = seed(Path(tmp) / str(size), size)
            database = ThingsDatabase(path)
            service = ThingsService(database)
            results["sizes"][str(size)] = {}
            for view in VIEWS:
                query = QueryToDos(view=view)
                runs: dict[str, Callable[[], Any]] = {
                    "floor: raw SQL": floor(path, view),
                    "query_todos": lambda s=service, q=query: s.query_todos(q),
                    "reader: every to-do": lambda d=database, v=view: d.todos(TODAY, v),
                }
                rows = len(database.todos(TODAY, view))  # type: ignore[arg-type]
                assert rows == len(runs["floor: raw SQL"]()), f"the floor reads {view} wrong"
                found = {name: measure(run) for name, run in runs.items()}
                base = found["floor: raw SQL"]["p50"]
                for name, numbers in found.items():
                    table.add_row(
                        f"{size:,}",
                        view,
                        name,
                        f"{rows:,}",
                        f"{numbers['p50']:.2f}",
                        f"{numbers['p99']:.2f}",
                        f"{numbers['p50'] / base:.2f}x",
                    )
                results["sizes"][str(size)][view] = {"rows": rows, **found}
                if size == SIZES[-1]:
                    verdicts[view] = found["query_todos"]["p50"] / base
        found = {"service: get_todo": measure(lambda: service.get_todo(GetToDo(id="bench-000500")))}
        results["sizes"][str(SIZES[-1])]["get_todo"] = found["service: get_todo"]
    console.print(table)
    console.print(f"get_todo at {SIZES[-1]:,}: {found['service: get_todo']['p50']:.2f} ms p50")
    passed = all(ratio <= TARGET for ratio in verdicts.values())
    for view, ratio in verdicts.items():
        verdict = "PASS" if ratio <= TARGET else "FAIL"
        console.print(
            f"query_todos {view} at {SIZES[-1]:,} within {TARGET:g}x of its floor: "
            f"{verdict} ({ratio:.2f}x)"
        )
    results["verdicts"] = verdicts
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2))
    console.print(f"written to {RESULTS}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
