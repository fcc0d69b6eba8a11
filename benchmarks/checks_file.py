"""What the benchmarks that check dict-shaped results share: printing their checks, and writing
every number with the machine it was measured on (``benchmarks/results/<name>.json``)."""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path
from typing import Any


def print_checks(found: list[dict[str, Any]]) -> None:
    for check in found:
        verdict = "PASS" if check["passed"] else "FAIL"
        cpu = f" (cpu ratio {check['cpu_ratio']})" if "cpu_ratio" in check else ""
        print(f"{verdict}  {check['name']} = {check['value']}{cpu} (target <= {check['target']})")


def write_results(
    path: Path, config: dict[str, Any], report: Any, found: list[dict[str, Any]]
) -> None:
    machine = {
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "load_average": os.getloadavg(),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "benchmark": path.stem,
        "machine": machine,
        "config": config,
        "results": report,
        "checks": found,
    }
    path.write_text(json.dumps(document, indent=2))
    print(f"results written to {path}")
