"""What the gateway adds to a call: ``Gateway.invoke`` vs calling the service directly.

Run with ``.venv/bin/python benchmarks/gateway_overhead.py`` (part of ``make bench``). Both sides
run in the same process on the same store, interleaved in rounds, so noise hits both alike. The
gateway side includes everything a real call pays: validation, the policy decision (mode read,
rules), the hop to a worker thread with a timeout, two structured log lines and the call record.
Prints p50/p99 of each and the added p50, estimated two ways: the difference of the overall p50s,
and the median of per-round p50 differences (rounds alternate, so slow drifts of this shared,
2-core machine cancel out); writes ``benchmarks/results/gateway_overhead.json``.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results" / "gateway_overhead.json"
REMINDERS = 1_000
ROUNDS, PER_ROUND = 60, 40
TARGET_MS = 0.2


def main() -> int:
    with tempfile.TemporaryDirectory() as home:
        os.environ["FRUITCTL_HOME"] = home
        from fruitctl import bootstrap
        from fruitctl.domain.actors import Actor

        app = bootstrap.build()
        seed(app)
        agent = Actor("agent", "bench")
        cases: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
            "get_lists": (
                lambda: app.reminders.get_lists({}),
                lambda: app.gateway.invoke("get_lists", {}, agent),
            ),
            "query_reminders (default)": (
                lambda: app.reminders.query_reminders({}),
                lambda: app.gateway.invoke("query_reminders", {}, agent),
            ),
        }
        report = {name: measure(direct, via) for name, (direct, via) in cases.items()}
        app.close()
    print_report(report)
    write(report)
    return 0 if all(r["added_p50_paired_ms"] < TARGET_MS for r in report.values()) else 1


def seed(app: Any) -> None:
    from fruitctl.ports import NewReminder

    default = app.backend.lists(with_counts=False)[0].id
    app.backend.create(
        [
            NewReminder(list_id=default, title=f"reminder {i}", tags=("next",))
            for i in range(REMINDERS)
        ]
    )


def measure(direct: Callable[[], Any], via: Callable[[], Any]) -> dict[str, float]:
    samples: dict[str, list[float]] = {"direct": [], "gateway": []}
    paired: list[float] = []
    for _ in range(20):  # warm both paths
        direct()
        via()
    for _ in range(ROUNDS):
        medians = {}
        for name, call in (("direct", direct), ("gateway", via)):
            batch = []
            for _ in range(PER_ROUND):
                started = time.perf_counter()
                call()
                batch.append((time.perf_counter() - started) * 1000)
            samples[name].extend(batch)
            medians[name] = statistics.median(batch)
        paired.append(medians["gateway"] - medians["direct"])
    out = {"added_p50_paired_ms": round(statistics.median(paired), 4)}
    for name, values in samples.items():
        values.sort()
        out[f"{name}_p50_ms"] = round(statistics.median(values), 4)
        out[f"{name}_p99_ms"] = round(values[int(len(values) * 0.99) - 1], 4)
    out["added_p50_ms"] = round(out["gateway_p50_ms"] - out["direct_p50_ms"], 4)
    return out


def print_report(report: dict[str, dict[str, float]]) -> None:
    columns = ("direct p50", "p99", "gateway p50", "p99", "added", "paired")
    print(f"{'call':28}" + "".join(f"{c:>13}" for c in columns))
    keys = (
        "direct_p50_ms",
        "direct_p99_ms",
        "gateway_p50_ms",
        "gateway_p99_ms",
        "added_p50_ms",
        "added_p50_paired_ms",
    )
    for name, r in report.items():
        print(f"{name:28}" + "".join(f"{r[k]:13.3f}" for k in keys))
    for name, r in report.items():
        verdict = "PASS" if r["added_p50_paired_ms"] < TARGET_MS else "FAIL"
        print(
            f"{verdict}  gateway adds {r['added_p50_paired_ms']:.3f} ms p50 (paired rounds) "
            f"to {name} (target < {TARGET_MS} ms)"
        )


def write(report: dict[str, Any]) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    machine = {
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
    }
    RESULTS.write_text(json.dumps({"machine": machine, "results": report}, indent=2))
    print(f"results written to {RESULTS}")


if __name__ == "__main__":
    raise SystemExit(main())
