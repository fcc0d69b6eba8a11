"""Process health: whether processes with an exact name (or a pid) run, and how they are doing
(psutil in this process; another user's process answers what the OS lets us see)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import psutil

from fruitctl.capabilities.system.service import PID_MAX
from fruitctl.domain.dates import format_epoch
from fruitctl.domain.errors import InvalidParams

PROCESS_MATCHES_MAX = 100
_CPU_SAMPLE_FOR_PROCESSES = 0.1
_NOT_RUNNING = frozenset({psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD})


def process_health(name: str | None = None, pid: int | None = None) -> dict[str, Any]:
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
            "started_at": format_epoch(created) if created is not None else None,
            "uptime_seconds": int(time.time() - created) if created is not None else None,
        }


def _quietly(read: Callable[[], Any]) -> Any:
    """A process attribute, or None when the OS will not tell us (another user's process) or
    the process is a zombie; a vanished process still raises NoSuchProcess."""
    try:
        return read()
    except (psutil.AccessDenied, psutil.ZombieProcess):
        return None
