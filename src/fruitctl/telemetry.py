"""Telemetry: structlog JSON events for every call, and the ``tool_calls`` record in state.db.

Events: ``tool_call_started``, ``tool_call_completed``, ``tool_call_failed``,
``tool_call_blocked``, each with ``trace_id``, ``span_id``, ``tool_name``, ``actor`` and
``latency_ms``. Arguments are redacted: no note bodies, file contents or secrets ever reach a log.

The record feeds rate limits and ``fruitctl stats``. Rows are buffered and written in batches by
a background thread (and on close), so recording a read never waits for a disk write; the rate
limit counts what is written plus what is still buffered.
"""

from __future__ import annotations

import atexit
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel
from sqlalchemy import Engine

from fruitctl.private import make_dirs

# Argument keys whose values never reach a log (compared lower-cased).
SECRET_KEYS = frozenset(
    {"notes", "content", "body", "text", "password", "token", "secret", "authorization", "key"}
)
TEXT_CAP = 80
FLUSH_EVERY_S = 0.25
FLUSH_AT_ROWS = 256
# Rows kept while the store cannot take them (busy past the wait, full, read-only): enough for
# minutes of heavy use; past it the oldest go, so a broken disk never grows the process.
HELD_AT_MOST = 10_000


def new_trace_id() -> str:
    return secrets.token_hex(16)


def new_span_id() -> str:
    return secrets.token_hex(8)


def redact(value: Any, key: str = "") -> Any:
    """A loggable copy of tool arguments: secrets and bodies replaced by their size."""
    if key.lower() in SECRET_KEYS and value is not None:
        size = len(value) if isinstance(value, str | bytes | list | dict) else 1
        return f"<redacted {size}>"
    if isinstance(value, dict):
        return {k: redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, key) for v in value]
    if isinstance(value, str) and len(value) > TEXT_CAP:
        return value[:TEXT_CAP] + f"…<{len(value)} chars>"
    return value


class EventLog:
    """Structured events, captured on the caller's thread as a tuple and rendered (structlog,
    JSON) and written by a background thread every ``FLUSH_EVERY_S`` and on close - so a read
    never waits on a log write. A process killed outright loses at most that last moment."""

    def __init__(self, stream: TextIO | None, close_stream: Callable[[], None]) -> None:
        self._stream = stream
        self._close_stream = close_stream
        self._pending: list[tuple[float, str, str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._render: Callable[..., Any] | None = None
        self._worker = _Periodic(self.flush)

    def info(self, event: str, **fields: Any) -> None:
        self._pending.append((time.time(), "info", event, fields))  # atomic under the GIL

    def warning(self, event: str, **fields: Any) -> None:
        self._pending.append((time.time(), "warning", event, fields))

    def error(self, event: str, **fields: Any) -> None:
        self._pending.append((time.time(), "error", event, fields))

    def flush(self) -> None:
        with self._lock:
            events, self._pending = self._pending, []
            if not events or self._stream is None:
                return
            if self._render is None:
                self._render = _renderer()
            lines = [self._line(self._render, *event) for event in events]
            self._stream.write("".join(lines))
            self._stream.flush()

    @staticmethod
    def _line(
        render: Callable[..., Any], at: float, level: str, event: str, fields: dict[str, Any]
    ) -> str:
        stamp = datetime.fromtimestamp(at).astimezone().isoformat(timespec="milliseconds")
        record = {"event": event, "level": level, "timestamp": stamp}
        record.update((key, _shown(value)) for key, value in fields.items())
        return str(render(None, level, record)) + "\n"

    def close(self) -> None:
        self._worker.stop()
        self.flush()
        self._close_stream()


def _renderer() -> Callable[..., Any]:
    # structlog's renderer, called directly: the bound-logger pipeline would add nothing here but
    # cost, since events are already plain dicts with their own timestamp. Imported on the first
    # flush, on the writer's thread: structlog loads rich, ~80 ms a start-up need not wait for.
    import structlog

    return structlog.processors.JSONRenderer()


def _shown(value: Any) -> Any:
    # Arguments arrive as validated models; they are dumped and redacted here, off the hot path.
    if isinstance(value, BaseModel):
        return redact(value.model_dump(mode="json", exclude_unset=True))
    return value


def configure_logging(log_dir: Path | None, *, stream: TextIO | None = None) -> EventLog:
    """Events as JSON lines in ``<log_dir>/fruitctl.log`` (0600), or in ``stream``."""
    close: Callable[[], None] = lambda: None  # noqa: E731
    if stream is None and log_dir is not None:
        make_dirs(log_dir)
        fd = os.open(log_dir / "fruitctl.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        stream = os.fdopen(fd, "a", encoding="utf-8")
        close = stream.close
    return EventLog(stream, close)


class _Periodic:
    """A daemon thread calling ``work`` every ``FLUSH_EVERY_S`` until stopped."""

    def __init__(self, work: Callable[[], object]) -> None:
        self._work = work
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fruitctl-flush", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.wait(FLUSH_EVERY_S):
            try:
                self._work()
            except Exception:  # a busy disk or database must not kill the thread
                time.sleep(FLUSH_EVERY_S)


@dataclass(frozen=True)
class CallRecord:
    at: float
    trace_id: str
    span_id: str
    tool: str
    actor: str
    actor_kind: str
    outcome: str  # ok | proposed | approved | blocked | failed
    error_code: str | None
    latency_ms: float
    retries: int = 0  # runs again after a retryable failure (a read, at most once)


_INSERT = (
    "INSERT INTO tool_calls (at, trace_id, span_id, tool, actor, actor_kind, outcome, "
    "error_code, latency_ms, retries) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
# Calls that ran, were filed or were refused for their input count toward rate limits (a
# stream of bad input costs the gateway as much); an approved proposal's execution
# ("approved") does not: its filing counted already.
COUNTED = ("ok", "failed", "proposed", "rejected")


Faults = Callable[[BaseException], Exception | None]
"""What a storage error means for a caller (the store's table of faults), None for a bug."""


class CallRecorder:
    """Buffers call records and writes them in batches; counts calls for rate limits.

    The records are the gateway's bookkeeping, not the caller's work: a store that cannot take
    them (busy, full, read-only) keeps them buffered for the next flush and never fails the call
    that made them. A read of them (a rate limit's count) that fails is the store's error."""

    def __init__(self, engine: Engine, faults: Faults = lambda _exc: None) -> None:
        self._conn: Any = engine.raw_connection()
        self._faults = faults
        self._lock = threading.Lock()
        self._pending: list[CallRecord] = []
        self._closed = False
        self._worker = _Periodic(self.flush)
        atexit.register(self.close)

    def record(self, item: CallRecord) -> None:
        with self._lock:
            self._pending.append(item)
            full = len(self._pending) >= FLUSH_AT_ROWS
        if full:
            self.flush()

    def recent(
        self, tool: str, since: float, actor: str | None = None, besides: str | None = None
    ) -> list[float]:
        """When ``tool`` was called since ``since`` (by ``actor``), leaving out the calls of
        trace ``besides``: a proposal being approved counted when it was filed."""
        marks = ", ".join("?" * len(COUNTED))
        query = f"SELECT at FROM tool_calls WHERE tool = ? AND at >= ? AND outcome IN ({marks})"
        params: list[Any] = [tool, since, *COUNTED]
        if actor is not None:
            query += " AND actor = ?"
            params.append(actor)
        if besides is not None:
            query += " AND trace_id != ?"
            params.append(besides)
        with self._lock:
            stored = self._read(query, params)
            buffered = [
                r.at
                for r in self._pending
                if r.tool == tool
                and r.at >= since
                and r.outcome in COUNTED
                and (actor is None or r.actor == actor)
                and r.trace_id != besides
            ]
        return sorted(stored + buffered)

    def _read(self, query: str, params: list[Any]) -> list[float]:
        try:
            return [row[0] for row in self._conn.execute(query, params)]
        except sqlite3.Error as exc:
            raise (self._faults(exc) or exc) from exc

    def flush(self) -> bool:
        """Writes the buffered records; False (they stay buffered) when the store cannot."""
        with self._lock:
            rows, self._pending = self._pending, []
            if not rows:
                return True
            try:
                self._write(rows)
            except sqlite3.Error:
                self._pending = (rows + self._pending)[-HELD_AT_MOST:]
                return False
            return True

    def _write(self, rows: list[CallRecord]) -> None:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            self._conn.executemany(_INSERT, [_row(r) for r in rows])
            self._conn.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._worker.stop()
        self.flush()
        self._conn.close()
        atexit.unregister(self.close)


def _row(r: CallRecord) -> tuple[Any, ...]:
    return (
        r.at,
        r.trace_id,
        r.span_id,
        r.tool,
        r.actor,
        r.actor_kind,
        r.outcome,
        r.error_code,
        r.latency_ms,
        r.retries,
    )


OUTCOME_COLUMNS = {
    "ok": "executed",
    "proposed": "proposed",
    "approved": "approved",
    "blocked": "blocked",
    "rejected": "rejected",
    "failed": "failed",
}
"""Each ``tool_calls`` outcome and the ``call_stats`` column that counts it."""


def call_stats(engine: Engine, since: float) -> list[dict[str, Any]]:
    """Per tool since ``since``: calls, then how many were executed, proposed, approved (a
    proposal's execution, recorded under its own trace), blocked, rejected (input refused before
    anything ran) and failed; the error rate (failed calls only: a proposal or a refusal is the
    policy working, a rejection the caller's mistake, not an error); p50/p95 ms."""
    query = "SELECT tool, outcome, latency_ms, retries FROM tool_calls WHERE at >= ? ORDER BY tool"
    by_tool: dict[str, list[tuple[str, float, int]]] = {}
    raw: Any = engine.raw_connection()
    try:
        for tool, outcome, latency, retries in raw.execute(query, (since,)):
            by_tool.setdefault(tool, []).append((outcome, latency, retries))
    finally:
        raw.close()
    return [_summary(tool, rows) for tool, rows in sorted(by_tool.items())]


def _summary(tool: str, rows: list[tuple[str, float, int]]) -> dict[str, Any]:
    latencies = sorted(latency for _, latency, _ in rows)
    counts = dict.fromkeys(OUTCOME_COLUMNS.values(), 0)
    for outcome, _, _ in rows:
        counts[OUTCOME_COLUMNS.get(outcome, "failed")] += 1
    return {
        "tool": tool,
        "calls": len(rows),
        **counts,
        "failures": counts["failed"],  # the name this column had before; the same count
        "errorRate": round(counts["failed"] / len(rows), 4),
        "retried": sum(1 for *_, retries in rows if retries),
        "p50Ms": _percentile(latencies, 50),
        "p95Ms": _percentile(latencies, 95),
    }


def _percentile(values: list[float], pct: int) -> float:
    index = min(len(values) - 1, max(0, round(pct / 100 * len(values) + 0.5) - 1))
    return round(values[index], 3)
