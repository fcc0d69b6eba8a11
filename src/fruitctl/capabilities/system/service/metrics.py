"""A snapshot of the machine: CPU, load, memory, swap, disks, uptime and GPUs (psutil in this
process; nvidia-smi, when there is one, through the sandbox's ``run_command``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import psutil

from fruitctl.capabilities.system.service.log_formats import complaint
from fruitctl.domain.dates import format_datetime, format_epoch, now
from fruitctl.domain.errors import ExecutionFailed, Unsupported
from fruitctl.sandbox import Limits, find_program, run_command

_GPU_LIMITS = Limits(cpu_seconds=10, memory_mb=4096, file_size_mb=1, open_files=256)
_GPU_QUERY = "--query-gpu=name,utilization.gpu,memory.used,memory.total"


def snapshot(cpu_sample_seconds: float, home: Path, gpu_timeout: float) -> dict[str, Any]:
    """CPU, load, memory, swap, disks, uptime and (with nvidia-smi) GPUs, right now."""
    booted = psutil.boot_time()
    gpu, gpu_error = gpus(gpu_timeout)
    return {
        "captured_at": format_datetime(now()),
        "cpu": _cpu(cpu_sample_seconds),
        "load_average": _load_average(),
        "memory": _memory(),
        "swap": _swap(),
        "disk": {"root": _disk(Path("/")), "home": _disk(home)},
        "boot_time": format_epoch(booted),
        "uptime_seconds": int(time.time() - booted),
        "gpu": gpu,
        "gpu_error": gpu_error,
    }


def gpus(timeout: float) -> tuple[list[dict[str, Any]] | None, str | None]:
    """The GPUs nvidia-smi reports, or None when there is no nvidia-smi. A failing
    nvidia-smi is reported next to the metrics instead of failing them all."""
    if find_program("nvidia-smi") is None:
        return None, None
    argv = ["nvidia-smi", _GPU_QUERY, "--format=csv,noheader,nounits"]
    try:
        result = run_command(argv, timeout=timeout, limits=_GPU_LIMITS)
    except (Unsupported, ExecutionFailed) as exc:
        return None, exc.message
    if result.timed_out or result.exit_code != 0:
        return None, f"nvidia-smi failed: {complaint(result.stderr) or 'no output'}"
    return parse_nvidia_smi(result.stdout), None


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
