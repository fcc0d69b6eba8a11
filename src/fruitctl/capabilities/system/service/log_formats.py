"""The system logs' formats, pure: what a caller may ask (``LogQuery``, every value checked
before it becomes one argv item), the reader's argv, and one line of its output into an entry -
journald's ``journalctl -o json`` on Linux, the unified log's ``log show --style ndjson`` on
macOS. Nothing here runs a program."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fruitctl.domain.dates import format_datetime, format_epoch
from fruitctl.domain.errors import InvalidParams

LEVELS = ("emerg", "alert", "crit", "err", "warning", "notice", "info", "debug")
"""syslog severities, most severe first; a level filter keeps that level and the ones above."""
PROCESS_NAME = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
SINCE_MAX_MINUTES = 1440
LINES_MAX = 1000
MESSAGE_MAX = 2000
"""A log message longer than this is cut (with a trailing '…'): one line must not flood a reply."""

Entry = dict[str, Any]


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


def complaint(stderr: str) -> str:
    """A reader's first line of complaint, short: enough to say why, not a dump."""
    for line in stderr.splitlines():
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
    return None if micros is None else format_epoch(micros / 1_000_000)


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
