"""Recent system log entries, read by the platform's own reader (``journalctl`` on Linux,
``log`` on macOS) started through the sandbox's ``run_command``: no shell, a fixed argv, each
caller-supplied value checked (``log_formats.LogQuery``) before it becomes one argv item."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fruitctl.capabilities.system.service.log_formats import (
    Entry,
    LogQuery,
    complaint,
    journal_argv,
    parse_journal_line,
    parse_unified_log_line,
    unified_log_argv,
)
from fruitctl.domain.errors import ExecutionFailed, Timeout, Unsupported
from fruitctl.sandbox import CommandResult, Limits, find_program, run_command

_LOG_LIMITS = Limits(cpu_seconds=20, memory_mb=2048, file_size_mb=1, open_files=1024)
_LOG_OUTPUT_MAX = 16_000_000


def read_logs(query: LogQuery, timeout: float) -> dict[str, Any]:
    """The last ``query.lines`` entries of the past ``query.since_minutes``, oldest first."""
    source = _log_source()
    result = run_command(
        source.argv(query), timeout=timeout, limits=_LOG_LIMITS, max_output_bytes=_LOG_OUTPUT_MAX
    )
    _check_reader(source.program, result, timeout)
    entries = [e for e in map(source.parse, result.stdout.splitlines()) if e is not None]
    return {
        "source": source.name,
        "since_minutes": query.since_minutes,
        "level": query.level,
        "process": query.process,
        "count": min(len(entries), query.lines),
        "truncated": result.truncated or len(entries) > query.lines,
        "warning": _reader_warning(source.program, result),
        "entries": entries[-query.lines :],
    }


@dataclass(frozen=True)
class LogSource:
    name: str
    program: str
    argv: Callable[[LogQuery], list[str]]
    parse: Callable[[str], Entry | None]


def _log_source() -> LogSource:
    if sys.platform.startswith("linux") and find_program("journalctl"):
        return LogSource("journald", "journalctl", journal_argv, parse_journal_line)
    if sys.platform == "darwin" and os.path.exists("/usr/bin/log"):
        return LogSource("unified_log", "log", unified_log_argv, parse_unified_log_line)
    raise Unsupported("reading system logs needs journalctl (Linux) or log (macOS)")


def _check_reader(program: str, result: CommandResult, timeout: float) -> None:
    if result.timed_out:
        raise Timeout(
            f"{program} did not answer within {timeout:g} s; "
            "try fewer minutes, a level or a process."
        )
    if result.exit_code != 0 and not result.truncated:
        detail = complaint(result.stderr) or "no message"
        raise ExecutionFailed(f"{program} failed (exit status {result.exit_code}): {detail}")


def _reader_warning(program: str, result: CommandResult) -> str | None:
    """What the caller should know about an answer that is still an answer."""
    if result.truncated:  # the reader was stopped: what it printed first is all there is
        return (
            f"{program} printed more than {_LOG_OUTPUT_MAX} bytes and was stopped, so the "
            "newest entries may be missing; use fewer minutes, a level or a process."
        )
    return complaint(result.stderr) or None
