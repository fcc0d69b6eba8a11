"""pytest on a file or folder, its outcome read from the JUnit XML report it writes into a
temporary folder (``--junitxml``), never scraped from what it prints for people.

It runs in the sandbox child (``run_tests``) under a time and a memory cap, with the project's
Python when it has one (``programs.python_for``), in the project's folder, with no cache written
into it (``-p no:cacheprovider``). The project's pytest plugins load as usual: a project's tests
often need them.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

from fruitctl.capabilities.code.service.paths import checked, folder_of
from fruitctl.capabilities.code.service.programs import program_env, python_for
from fruitctl.domain.errors import ExecutionFailed, Unsupported
from fruitctl.sandbox import CommandResult, Limits, run_command

REPORT_MAX = 32 * 1024 * 1024
"""The largest JUnit report read (the run's file size limit is above it)."""
TAIL_MAX = 2000
_NOT_RUN = {2: "interrupted", 3: "internal error", 4: "usage error", 5: "no tests collected"}


def run_pytest(
    path: str, timeout: int, memory_mb: int, max_failures: int, output_chars: int
) -> dict[str, Any]:
    """pytest on ``path``: counts, and the failing tests' ids with their output cut."""
    real = checked(path)
    folder = folder_of(real)
    python = python_for(folder)
    if not python.has("pytest"):
        where = "the project's .venv" if python.venv else "the Python fruitctl runs on"
        raise Unsupported(f"pytest is not installed in {where} ({python.executable}).")
    limits = Limits(cpu_seconds=timeout, memory_mb=memory_mb, file_size_mb=64, open_files=1024)
    with tempfile.TemporaryDirectory(prefix="fruitctl-tests-") as scratch, contextlib.chdir(folder):
        report = Path(scratch) / "junit.xml"
        home = Path(scratch) / "home"
        home.mkdir()
        argv = [python.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
        argv += [f"--junitxml={report}", "-o", "junit_family=xunit2", "-o", "junit_logging=all"]
        argv += ["--", str(real)]
        started = time.monotonic()
        result = run_command(
            argv, timeout=timeout, limits=limits, env=program_env(home), max_output_bytes=2_000_000
        )
        seconds = round(time.monotonic() - started, 3)
        counts, failures = _read_report(report, max_failures, output_chars, result)
    return {
        "path": str(real),
        "python": python.executable,
        "python_source": python.source,
        "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        **counts,
        "duration_seconds": seconds,
        "failures": failures[:max_failures],
        "failures_truncated": counts["failed"] + counts["errors"] > max_failures,
        "output_tail": None if counts["total"] else _tail(result),
    }


def _read_report(
    report: Path, max_failures: int, output_chars: int, result: CommandResult
) -> tuple[dict[str, int], list[dict[str, Any]]]:
    zero = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "total": 0}
    if not report.exists():
        if result.timed_out:
            return zero, []
        why = _NOT_RUN.get(result.exit_code, f"exit status {result.exit_code}")
        raise ExecutionFailed(f"pytest wrote no report ({why}): {_tail(result)}")
    if os.path.getsize(report) > REPORT_MAX:
        raise ExecutionFailed(f"pytest's report is larger than {REPORT_MAX} bytes.")
    return summarize(ElementTree.parse(report).getroot(), max_failures, output_chars)


def summarize(
    root: ElementTree.Element, max_failures: int, output_chars: int
) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Counts over every ``testcase`` and the first failing ones, from a JUnit XML tree."""
    counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "total": 0}
    failures: list[dict[str, Any]] = []
    for case in root.iter("testcase"):
        outcome = _outcome(case)
        counts["total"] += 1
        counts[outcome] += 1
        if outcome in ("failed", "errors") and len(failures) < max_failures:
            failures.append(_failure(case, outcome, output_chars))
    return counts, failures


def _outcome(case: ElementTree.Element) -> str:
    """A test case's outcome; a test that failed and then errored in teardown counts as an
    error once, as pytest's own summary counts it."""
    if case.find("error") is not None:
        return "errors"
    if case.find("failure") is not None:
        return "failed"
    if case.find("skipped") is not None:
        return "skipped"
    return "passed"


def _failure(case: ElementTree.Element, outcome: str, output_chars: int) -> dict[str, Any]:
    element = case.find("error" if outcome == "errors" else "failure")
    assert element is not None
    parts = [element.text or ""]
    for stream in ("system-out", "system-err"):
        captured = case.find(stream)
        if captured is not None and captured.text:
            parts.append(f"--- {stream} ---\n{captured.text}")
    output = "\n".join(part.strip("\n") for part in parts if part)
    return {
        "node_id": node_id(case),
        "outcome": "error" if outcome == "errors" else "failed",
        "message": (element.get("message") or None),
        "output": output[:output_chars],
        "output_truncated": len(output) > output_chars,
    }


def node_id(case: ElementTree.Element) -> str:
    """pytest's node id (``tests/test_a.py::TestX::test_y``) from the report's ``classname``
    (dotted module and class) and ``name``, with ``file`` when pytest gave it."""
    classname = case.get("classname") or ""
    name = case.get("name") or ""
    parts = classname.split(".")
    file = case.get("file")
    if file:
        module_parts = len(Path(file).with_suffix("").parts)
        classes = parts[module_parts:]
        return "::".join([file, *classes, name])
    for cut in range(len(parts), 0, -1):  # the longest dotted prefix that is a file here
        candidate = Path(*parts[:cut]).with_suffix(".py")
        if candidate.is_file():
            return "::".join([candidate.as_posix(), *parts[cut:], name])
    return "::".join([p for p in (classname, name) if p])


def _tail(result: CommandResult) -> str:
    text = (result.stdout.strip() + "\n" + result.stderr.strip()).strip()
    return text[-TAIL_MAX:]
