"""Seed 001's system-health reads (section 7.2): a metrics snapshot, process health, recent logs.

Everything here only looks. Metrics and processes come from psutil in this process. Logs come from
the platform's own reader (``journalctl`` on Linux, ``log`` on macOS) started through the sandbox's
``run_command``: there is no shell, the argv is fixed, and each caller-supplied value is checked
against a closed set or a strict pattern before it becomes one argv item of its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import psutil

from fruitctl.domain.dates import format_datetime, now
from fruitctl.domain.errors import ExecutionFailed, InvalidParams, Timeout, Unsupported
from fruitctl.sandbox import CommandResult, Limits, find_program, run_command

LEVELS = ("emerg", "alert", "crit", "err", "warning", "notice", "info", "debug")
"""syslog severities, most severe first; a level filter keeps that level and the ones above."""
PROCESS_NAME = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
SINCE_MAX_MINUTES = 1440
LINES_MAX = 1000
MESSAGE_MAX = 2000
"""A log message longer than this is cut (with a trailing '…'): one line must not flood a reply."""
PROCESS_MATCHES_MAX = 100
PID_MAX = 2**31 - 1

_LOG_LIMITS = Limits(cpu_seconds=20, memory_mb=2048, file_size_mb=1, open_files=1024)
_LOG_OUTPUT_MAX = 16_000_000
_GPU_LIMITS = Limits(cpu_seconds=10, memory_mb=4096, file_size_mb=1, open_files=256)
_GPU_QUERY = "--query-gpu=name,utilization.gpu,memory.used,memory.total"
_CPU_SAMPLE_FOR_PROCESSES = 0.1
_NOT_RUNNING = frozenset({psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD})

Entry = dict[str, Any]


@dataclass(frozen=True)
class SystemService:
    cpu_sample_seconds: float = 0.2
    """How long the CPU is watched for its percentage: a single reading means nothing."""
    home: Path = field(default_factory=Path.home)
    gpu_timeout: float = 5.0
    log_timeout: float = 15.0
    """Under read_system_logs' 20 s, so a slow reader is this Timeout, not the gateway's."""

    # -- metrics -------------------------------------------------------------------------------

    def metrics_snapshot(self) -> dict[str, Any]:
        """CPU, load, memory, swap, disks, uptime and (with nvidia-smi) GPUs, right now."""
        booted = psutil.boot_time()
        gpu, gpu_error = self._gpus()
        return {
            "captured_at": format_datetime(now()),
            "cpu": _cpu(self.cpu_sample_seconds),
            "load_average": _load_average(),
            "memory": _memory(),
            "swap": _swap(),
            "disk": {"root": _disk(Path("/")), "home": _disk(self.home)},
            "boot_time": _timestamp(booted),
            "uptime_seconds": int(time.time() - booted),
            "gpu": gpu,
            "gpu_error": gpu_error,
        }

    def _gpus(self) -> tuple[list[dict[str, Any]] | None, str | None]:
        """The GPUs nvidia-smi reports, or None when there is no nvidia-smi. A failing
        nvidia-smi is reported next to the metrics instead of failing them all."""
        if find_program("nvidia-smi") is None:
            return None, None
        argv = ["nvidia-smi", _GPU_QUERY, "--format=csv,noheader,nounits"]
        try:
            result = run_command(argv, timeout=self.gpu_timeout, limits=_GPU_LIMITS)
        except (Unsupported, ExecutionFailed) as exc:
            return None, exc.message
        if result.timed_out or result.exit_code != 0:
            return None, f"nvidia-smi failed: {_first_line(result) or 'no output'}"
        return parse_nvidia_smi(result.stdout), None

    # -- processes -----------------------------------------------------------------------------

    def process_health(self, name: str | None = None, pid: int | None = None) -> dict[str, Any]:
        """Whether processes with this exact name (or this pid) run, and how they are doing.
        Nothing found is an answer (``running: false``), not an error."""
        if (name is None) == (pid is None):
            raise InvalidParams("Give exactly one of 'name' or 'pid'.")
        found = _by_name(_checked_name(name)) if name is not None else _by_pid(_checked_pid(pid))
        processes = _describe(found)
        return {
            "query": {"name": name, "pid": pid},
            "running": any(p["running"] for p in processes),
            "count": len(processes),
            "processes": processes,
        }

    # -- logs ----------------------------------------------------------------------------------

    def read_logs(
        self,
        since_minutes: int = 60,
        level: str | None = None,
        process: str | None = None,
        lines: int = 200,
    ) -> dict[str, Any]:
        """The last ``lines`` system log entries of the past ``since_minutes``, oldest first,
        optionally only those at ``level`` or more severe and from ``process``."""
        query = LogQuery.checked(since_minutes, level, process, lines)
        source = _log_source()
        result = run_command(
            source.argv(query),
            timeout=self.log_timeout,
            limits=_LOG_LIMITS,
            max_output_bytes=_LOG_OUTPUT_MAX,
        )
        _check_reader(source.program, result, self.log_timeout)
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


# -- metrics helpers -------------------------------------------------------------------------------


def _cpu(sample_seconds: float) -> dict[str, Any]:
    per_core = psutil.cpu_percent(interval=sample_seconds, percpu=True)
    return {
        "percent": round(sum(per_core) / len(per_core), 1) if per_core else 0.0,
        "per_core_percent": per_core,
        "logical_cores": psutil.cpu_count(logical=True),
        "physical_cores": psutil.cpu_count(logical=False),
    }


def _load_average() -> dict[str, float]:
    one, five, fifteen = psutil.getloadavg()
    return {"1m": round(one, 2), "5m": round(five, 2), "15m": round(fifteen, 2)}


def _memory() -> dict[str, Any]:
    memory = psutil.virtual_memory()
    return {
        "total_bytes": memory.total,
        "available_bytes": memory.available,
        "used_percent": memory.percent,
    }


def _swap() -> dict[str, Any]:
    swap = psutil.swap_memory()
    return {"total_bytes": swap.total, "used_bytes": swap.used, "used_percent": swap.percent}


def _disk(path: Path) -> dict[str, Any] | None:
    """Usage of the filesystem holding ``path``; None when it cannot be read (a HOME that does
    not exist must not cost the whole snapshot)."""
    try:
        usage = psutil.disk_usage(str(path))
    except OSError:
        return None
    return {
        "path": str(path),
        "total_bytes": usage.total,
        "used_bytes": usage.used,
        "free_bytes": usage.free,
        "used_percent": usage.percent,
    }


def _timestamp(seconds: float) -> str:
    return format_datetime(datetime.fromtimestamp(seconds).astimezone())


def parse_nvidia_smi(text: str) -> list[dict[str, Any]]:
    """``name, utilization %, memory used MiB, memory total MiB`` lines (csv, noheader, nounits)
    into one record per GPU; '[N/A]'-style values become None."""
    gpus = []
    for line in text.splitlines():
        parts = [part.strip() for part in line.rsplit(",", 3)]
        if len(parts) != 4 or not parts[0]:
            continue
        gpus.append(
            {
                "name": parts[0],
                "utilization_percent": _number(parts[1]),
                "memory_used_mb": _number(parts[2]),
                "memory_total_mb": _number(parts[3]),
            }
        )
    return gpus


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


# -- process helpers -------------------------------------------------------------------------------


def _checked_name(name: object) -> str:
    if not isinstance(name, str) or not 1 <= len(name) <= 255:
        raise InvalidParams("'name' must be a process name of 1 to 255 characters.")
    if any(not char.isprintable() for char in name):
        raise InvalidParams("'name' cannot contain control characters.")
    return name


def _checked_pid(pid: object) -> int:
    if isinstance(pid, bool) or not isinstance(pid, int) or not 1 <= pid <= PID_MAX:
        raise InvalidParams(f"'pid' must be an integer from 1 to {PID_MAX}.")
    return pid


def _by_pid(pid: int) -> list[psutil.Process]:
    try:
        return [psutil.Process(pid)]
    except psutil.NoSuchProcess:
        return []


def _by_name(name: str) -> list[psutil.Process]:
    """Processes whose psutil name is exactly ``name`` (no patterns: a name is not a query)."""
    found = []
    for proc in psutil.process_iter(["name"]):
        if proc.info.get("name") == name:
            found.append(proc)
            if len(found) >= PROCESS_MATCHES_MAX:
                break
    return found


def _describe(processes: list[psutil.Process]) -> list[dict[str, Any]]:
    """Each process that still exists, with a CPU percentage measured over a short common
    window (psutil's first reading of a process is always 0)."""
    if processes:
        for proc in processes:
            _start_cpu_sample(proc)
        time.sleep(_CPU_SAMPLE_FOR_PROCESSES)
    described = []
    for proc in processes:
        try:
            described.append(_process_info(proc))
        except psutil.NoSuchProcess:  # it ended while we looked
            continue
    return described


def _start_cpu_sample(proc: psutil.Process) -> None:
    with contextlib.suppress(psutil.Error):  # gone or not ours: _process_info will say so
        proc.cpu_percent(None)


def _process_info(proc: psutil.Process) -> dict[str, Any]:
    with proc.oneshot():
        status = _quietly(proc.status)
        created = _quietly(proc.create_time)
        memory = _quietly(proc.memory_info)
        return {
            "pid": proc.pid,
            "name": _quietly(proc.name),
            "running": status not in _NOT_RUNNING,
            "status": status,
            "cpu_percent": _quietly(lambda: proc.cpu_percent(None)),
            "rss_bytes": memory.rss if memory is not None else None,
            "started_at": _timestamp(created) if created is not None else None,
            "uptime_seconds": int(time.time() - created) if created is not None else None,
        }


def _quietly(read: Callable[[], Any]) -> Any:
    """A process attribute, or None when the OS will not tell us (another user's process) or
    the process is a zombie; a vanished process still raises NoSuchProcess."""
    try:
        return read()
    except (psutil.AccessDenied, psutil.ZombieProcess):
        return None


# -- log helpers -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LogQuery:
    since_minutes: int
    level: str | None
    process: str | None
    lines: int

    @classmethod
    def checked(
        cls, since_minutes: object, level: object, process: object, lines: object
    ) -> LogQuery:
        """Every value validated here is later one argv item: a closed set or a strict pattern,
        so nothing a caller writes can become an option or a predicate of its own."""
        return cls(
            since_minutes=_int_in("since_minutes", since_minutes, 1, SINCE_MAX_MINUTES),
            level=_level(level),
            process=_process(process),
            lines=_int_in("lines", lines, 1, LINES_MAX),
        )


def _int_in(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidParams(f"'{name}' must be an integer from {low} to {high}.", field=name)
    return value


def _level(level: object) -> str | None:
    if level is not None and level not in LEVELS:
        raise InvalidParams(f"'level' must be one of: {', '.join(LEVELS)}.", field="level")
    return level


def _process(process: object) -> str | None:
    if process is not None and not (isinstance(process, str) and PROCESS_NAME.match(process)):
        raise InvalidParams(
            "'process' must be 1-64 letters, digits, '.', '_' or '-'.", field="process"
        )
    return process


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
        detail = _first_line(result) or "no message"
        raise ExecutionFailed(f"{program} failed (exit status {result.exit_code}): {detail}")


def _reader_warning(program: str, result: CommandResult) -> str | None:
    """What the caller should know about an answer that is still an answer."""
    if result.truncated:  # the reader was stopped: what it printed first is all there is
        return (
            f"{program} printed more than {_LOG_OUTPUT_MAX} bytes and was stopped, so the "
            "newest entries may be missing; use fewer minutes, a level or a process."
        )
    return _first_line(result) or None


def _first_line(result: CommandResult) -> str:
    """The reader's first line of complaint, short: enough to say why, not a dump."""
    for line in result.stderr.splitlines():
        if line.strip():
            return _clip(line.strip(), 300)
    return ""


def _clip(text: str, limit: int = MESSAGE_MAX) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _entry(time_: str | None, level: str | None, process: Any, pid: Any, message: str) -> Entry:
    return {
        "time": time_,
        "level": level,
        "process": process if isinstance(process, str) else None,
        "pid": _int_or_none(pid),
        "message": _clip(message),
    }


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _json_object(line: str) -> dict[str, Any] | None:
    try:
        data = json.loads(line)
    except ValueError:  # a line cut by the output cap, or a reader's stray text
        return None
    return data if isinstance(data, dict) else None


# -- journald (Linux) ------------------------------------------------------------------------------


def journal_argv(query: LogQuery) -> list[str]:
    argv = ["journalctl", "-o", "json", "--no-pager", "-n", str(query.lines)]
    argv += ["--since", f"-{query.since_minutes}min"]
    if query.level is not None:
        argv += ["-p", query.level]
    if query.process is not None:
        argv += ["-t", query.process]  # SYSLOG_IDENTIFIER: what `journalctl -t` and syslog call it
    return argv


def parse_journal_line(line: str) -> Entry | None:
    """One ``journalctl -o json`` line into an entry, or None when it is not one."""
    data = _json_object(line)
    if data is None or "MESSAGE" not in data:
        return None
    priority = _int_or_none(_journal_text(data.get("PRIORITY")))
    return _entry(
        _journal_time(data.get("__REALTIME_TIMESTAMP")),
        LEVELS[priority] if priority is not None and 0 <= priority < len(LEVELS) else None,
        _journal_text(data.get("SYSLOG_IDENTIFIER")) or _journal_text(data.get("_COMM")),
        _journal_text(data.get("_PID")) or _journal_text(data.get("SYSLOG_PID")),
        _journal_text(data.get("MESSAGE")) or "",
    )


def _journal_text(value: Any) -> str | None:
    """journald writes a field as a string, as a list of byte values when it is not valid UTF-8,
    or as a list of those when the field repeats."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(b, int) for b in value):
        return bytes(b & 0xFF for b in value).decode("utf-8", errors="replace")
    if isinstance(value, list):
        texts = [text for text in map(_journal_text, value) if text is not None]
        return "\n".join(texts) if texts else None
    return None


def _journal_time(value: Any) -> str | None:
    micros = _int_or_none(_journal_text(value))
    return None if micros is None else _timestamp(micros / 1_000_000)


# -- unified log (macOS) ---------------------------------------------------------------------------

# A level threshold as the messageTypes at or above it (the unified log has no warning/notice:
# its "default" sits there). Debug keeps everything, so it needs no predicate.
_MAC_TYPES: dict[str, tuple[str, ...]] = {
    "emerg": ("fault",),
    "alert": ("fault",),
    "crit": ("fault",),
    "err": ("fault", "error"),
    "warning": ("fault", "error", "default"),
    "notice": ("fault", "error", "default"),
    "info": ("fault", "error", "default", "info"),
}
_MAC_LEVELS = {
    "Fault": "crit",
    "Error": "err",
    "Default": "notice",
    "Info": "info",
    "Debug": "debug",
}
_MAC_TIME_FORMATS = ("%Y-%m-%d %H:%M:%S.%f%z", "%Y-%m-%d %H:%M:%S%z")


def unified_log_argv(query: LogQuery) -> list[str]:
    """``log show`` by default leaves out info and debug messages; they are asked for only when
    the level filter wants them."""
    argv = ["/usr/bin/log", "show", "--style", "ndjson", "--last", f"{query.since_minutes}m"]
    if query.level in ("info", "debug"):
        argv.append("--info")
    if query.level == "debug":
        argv.append("--debug")
    predicate = unified_log_predicate(query)
    if predicate:
        argv += ["--predicate", predicate]
    return argv


def unified_log_predicate(query: LogQuery) -> str:
    """The NSPredicate text, built only from a name that matched PROCESS_NAME (no quotes or
    backslashes can occur in it) and from fixed messageType words."""
    terms = []
    if query.process is not None:
        terms.append(f'process == "{query.process}"')
    types = _MAC_TYPES.get(query.level or "debug")
    if types:
        terms.append("(" + " OR ".join(f"messageType == {kind}" for kind in types) + ")")
    return " AND ".join(terms)


def parse_unified_log_line(line: str) -> Entry | None:
    """One ``log show --style ndjson`` line into an entry, or None for anything that is not a
    log event (activities, the closing ``{"count": ..., "finished": 1}`` line)."""
    data = _json_object(line)
    if data is None or data.get("eventType", "logEvent") != "logEvent":
        return None
    message = data.get("eventMessage")
    if not isinstance(message, str):
        return None
    image = data.get("processImagePath")
    return _entry(
        _mac_time(data.get("timestamp")),
        _MAC_LEVELS.get(str(data.get("messageType"))),
        os.path.basename(image) if isinstance(image, str) and image else None,
        data.get("processID"),
        message,
    )


def _mac_time(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    for pattern in _MAC_TIME_FORMATS:
        try:
            return format_datetime(datetime.strptime(value, pattern))
        except ValueError:
            continue
    return None
