"""The system-health reads: a metrics snapshot (``metrics``), process health (``processes``)
and recent logs (``logs``, with the formats in ``log_formats``).

Everything here only looks. Metrics and processes come from psutil in this process. Logs come from
the platform's own reader (``journalctl`` on Linux, ``log`` on macOS) started through the sandbox's
``run_command``: there is no shell, the argv is fixed, and each caller-supplied value is checked
against a closed set or a strict pattern before it becomes one argv item of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fruitctl.capabilities.system.service.log_formats import LINES_MAX, SINCE_MAX_MINUTES, LogQuery

__all__ = ["LINES_MAX", "PID_MAX", "SINCE_MAX_MINUTES", "SystemService"]

PID_MAX = 2**31 - 1
"""The largest pid ``process_health`` takes. Declared here, with the tools' other bounds: the
readers (psutil, the sandbox's programs) load when a tool first runs, not with the catalog."""


@dataclass(frozen=True)
class SystemService:
    cpu_sample_seconds: float = 0.2
    """How long the CPU is watched for its percentage: a single reading means nothing."""
    home: Path = field(default_factory=Path.home)
    gpu_timeout: float = 5.0
    log_timeout: float = 15.0
    """Under read_system_logs' 20 s, so a slow reader is this Timeout, not the gateway's."""

    def metrics_snapshot(self) -> dict[str, Any]:
        """CPU, load, memory, swap, disks, uptime and (with nvidia-smi) GPUs, right now."""
        from fruitctl.capabilities.system.service import metrics

        return metrics.snapshot(self.cpu_sample_seconds, self.home, self.gpu_timeout)

    def process_health(self, name: str | None = None, pid: int | None = None) -> dict[str, Any]:
        """Whether processes with this exact name (or this pid) run, and how they are doing."""
        from fruitctl.capabilities.system.service import processes

        return processes.process_health(name, pid)

    def read_logs(
        self,
        since_minutes: int = 60,
        level: str | None = None,
        process: str | None = None,
        lines: int = 200,
    ) -> dict[str, Any]:
        """The last ``lines`` system log entries of the past ``since_minutes``, oldest first,
        optionally only those at ``level`` or more severe and from ``process``."""
        from fruitctl.capabilities.system.service import logs

        query = LogQuery.checked(since_minutes, level, process, lines)
        return logs.read_logs(query, self.log_timeout)
