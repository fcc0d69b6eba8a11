"""What the system tools answer, as types (their ``returns`` and ``outputSchema``)."""

from __future__ import annotations

from typing_extensions import TypedDict


class Cpu(TypedDict):
    percent: float
    per_core_percent: list[float]
    logical_cores: int | None
    physical_cores: int | None


LoadAverage = TypedDict("LoadAverage", {"1m": float, "5m": float, "15m": float})


class Memory(TypedDict):
    total_bytes: int
    available_bytes: int
    used_percent: float


class Swap(TypedDict):
    total_bytes: int
    used_bytes: int
    used_percent: float


class Disk(TypedDict):
    path: str
    total_bytes: int
    used_bytes: int
    free_bytes: int
    used_percent: float


class Disks(TypedDict):
    root: Disk | None
    home: Disk | None


class Gpu(TypedDict):
    name: str
    utilization_percent: float | None
    memory_used_mb: float | None
    memory_total_mb: float | None


class Metrics(TypedDict):
    captured_at: str
    cpu: Cpu
    load_average: LoadAverage
    memory: Memory
    swap: Swap
    disk: Disks
    boot_time: str
    uptime_seconds: int
    gpu: list[Gpu] | None
    gpu_error: str | None


class ProcessQuery(TypedDict):
    name: str | None
    pid: int | None


class Process(TypedDict):
    pid: int
    name: str | None
    running: bool
    status: str | None
    cpu_percent: float | None
    rss_bytes: int | None
    started_at: str | None
    uptime_seconds: int | None


class ProcessHealth(TypedDict):
    query: ProcessQuery
    running: bool
    count: int
    processes: list[Process]


class LogEntry(TypedDict):
    time: str | None
    level: str | None
    process: str | None
    pid: int | None
    message: str


class Logs(TypedDict):
    source: str
    since_minutes: int
    level: str | None
    process: str | None
    count: int
    truncated: bool
    warning: str | None
    entries: list[LogEntry]
