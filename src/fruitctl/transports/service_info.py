"""Seed 000's ``system.info``: what every door answers about the running service."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from fruitctl import __version__

SERVICE = "fruitctl"
SUPERVISOR_ENV = "FRUITCTL_SUPERVISOR_PID"
"""Set by ``serve --supervise`` for the daemon it starts (and restarts): the supervisor's pid."""


def service_info(
    status: dict[str, Any],
    socket_path: Path,
    http_url: str | None,
    *,
    uptime_ms: int,
    daemon: bool,
) -> dict[str, Any]:
    """Seed 000's ``system.info`` (service, version, uptimeMs, socketPath, permissions) plus the
    mode, the backends, whether a daemon answered, its pid and the HTTP address (null until the
    HTTP API is served)."""
    return {
        "service": SERVICE,
        "version": __version__,
        "uptimeMs": uptime_ms,
        "socketPath": str(socket_path),
        "httpUrl": http_url,
        "daemon": daemon,
        "pid": os.getpid(),
        "supervisorPid": supervisor_pid() if daemon else None,
        **status,
    }


def supervisor_pid() -> int | None:
    """The ``--supervise`` process that started this daemon and restarts it, if one did."""
    named = os.environ.get(SUPERVISOR_ENV, "")
    return os.getppid() if named.isdigit() and int(named) == os.getppid() else None
