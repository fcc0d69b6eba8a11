"""ruff and mypy on a file or folder, their reports read as data (ruff's JSON, mypy's
``-O json`` lines), never scraped from what they print for people.

Both run in the sandbox child (``run_linter``) with the project's Python when it has one
(``programs.python_for``): mypy can load plugins a project names, which is code that project
chose. Neither writes into the project: ruff runs with ``--no-cache``, mypy's cache goes to a
temporary folder thrown away afterwards.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from fruitctl.capabilities.code.service.paths import checked, folder_of
from fruitctl.capabilities.code.service.programs import Python, program_env, python_for
from fruitctl.sandbox import CommandResult, Limits, run_command

LINTERS = ("ruff", "mypy")
LINT_TIMEOUT = 120.0
LINT_LIMITS = Limits(cpu_seconds=120, memory_mb=2048, file_size_mb=256, open_files=1024)
LINT_OUTPUT_MAX = 8_000_000
MESSAGE_MAX = 1000


def run_linters(path: str, linters: Iterable[str], max_findings: int) -> dict[str, Any]:
    """Each of ``linters`` on ``path``: their findings together, bounded, and how each ran."""
    real = checked(path)
    folder = folder_of(real)
    python = python_for(folder)
    runs: list[dict[str, Any]] = []
    findings: list[dict[str, Any]] = []
    # mypy reads its configuration from the folder it runs in: run both there.
    with tempfile.TemporaryDirectory(prefix="fruitctl-lint-") as scratch, contextlib.chdir(folder):
        for name in dict.fromkeys(linters):
            run, found = _run_one(name, python, real, folder, Path(scratch))
            runs.append(run)
            findings.extend(found)
    return {
        "path": str(real),
        "linters": runs,
        "count": len(findings),
        "truncated": len(findings) > max_findings,
        "findings": findings[:max_findings],
    }


def _run_one(
    name: str, python: Python, real: Path, folder: Path, scratch: Path
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    run: dict[str, Any] = {"linter": name, "python": python.executable, "count": 0, "error": None}
    if not python.has(name):
        where = "the project's .venv" if python.venv else "the Python fruitctl runs on"
        return {**run, "status": "missing", "error": f"{name} is not installed in {where}."}, []
    argv, read = _COMMANDS[name](python.executable, real, scratch)
    home = scratch / f"{name}-home"
    home.mkdir()
    result = run_command(
        argv,
        timeout=LINT_TIMEOUT,
        limits=LINT_LIMITS,
        env=program_env(home),
        max_output_bytes=LINT_OUTPUT_MAX,
    )
    problem = _problem(name, result)
    if problem is None:
        try:
            found = read(result.stdout, folder)
        except (ValueError, KeyError, TypeError) as exc:
            problem = f"{name}'s report could not be read ({type(exc).__name__})."
    if problem is not None:
        return {**run, "status": "failed", "error": problem}, []
    return {**run, "status": "ran", "count": len(found)}, found


def _problem(name: str, result: CommandResult) -> str | None:
    if result.timed_out:
        return f"{name} did not finish within {LINT_TIMEOUT:g} s and was stopped."
    if result.truncated:
        return f"{name} reported more than {LINT_OUTPUT_MAX} bytes and was stopped."
    if result.exit_code in _FINE[name]:
        return None
    tail = result.stderr.strip().splitlines()[-3:] or result.stdout.strip().splitlines()[-3:]
    said = " ".join(tail)[-MESSAGE_MAX:] or "no message"
    return f"{name} failed with exit status {result.exit_code}: {said}"


# -- ruff ------------------------------------------------------------------------------------------


def _ruff(python: str, real: Path, scratch: Path) -> tuple[list[str], Reader]:
    argv = [python, "-m", "ruff", "check", "--output-format", "json", "--no-cache"]
    return [*argv, "--exit-zero", "--", str(real)], _ruff_findings


def _ruff_findings(text: str, folder: Path) -> list[dict[str, Any]]:
    found = []
    for item in json.loads(text or "[]"):
        location = item.get("location") or {}
        found.append(
            _finding(
                "ruff",
                item.get("filename"),
                location.get("row"),
                location.get("column"),
                item.get("code"),
                "error" if item.get("code") is None else "warning",
                item.get("message", ""),
            )
        )
    return found


# -- mypy ------------------------------------------------------------------------------------------


def _mypy(python: str, real: Path, scratch: Path) -> tuple[list[str], Reader]:
    cache = scratch / "mypy-cache"
    argv = [python, "-m", "mypy", "-O", "json", "--cache-dir", str(cache), "--no-color-output"]
    return [*argv, "--", str(real)], _mypy_findings


def _mypy_findings(text: str, folder: Path) -> list[dict[str, Any]]:
    found = []
    for line in text.splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        message = item.get("message", "")
        if item.get("hint"):
            message = f"{message} ({item['hint']})"
        file = item.get("file")
        found.append(
            _finding(
                "mypy",
                str(folder / file) if file and not Path(file).is_absolute() else file,
                item.get("line"),
                _mypy_column(item.get("column")),
                item.get("code"),
                item.get("severity", "error"),
                message,
            )
        )
    return found


def _mypy_column(column: object) -> int | None:
    """mypy counts columns from 0 (and says -1 for none); ruff and editors count from 1."""
    return column + 1 if isinstance(column, int) and column >= 0 else None


# -- shared ----------------------------------------------------------------------------------------


Reader = Callable[[str, Path], list[dict[str, Any]]]
_COMMANDS: dict[str, Callable[[str, Path, Path], tuple[list[str], Reader]]] = {
    "ruff": _ruff,
    "mypy": _mypy,
}
_FINE = {"ruff": {0}, "mypy": {0, 1}}
"""Exit statuses that mean "it checked": ruff with --exit-zero 0; mypy 1 when it found errors."""


def _finding(
    tool: str,
    file: object,
    line: object,
    column: object,
    code: object,
    severity: str,
    message: str,
) -> dict[str, Any]:
    return {
        "tool": tool,
        "file": file if isinstance(file, str) else None,
        "line": line if isinstance(line, int) else None,
        "column": column if isinstance(column, int) else None,
        "code": code if isinstance(code, str) else None,
        "severity": severity,
        "message": str(message)[:MESSAGE_MAX],
    }
