"""System health: the metrics snapshot, process health and system logs on this machine, the log
parsers on realistic journald and macOS lines, and the three tools as an agent sees them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import psutil
import pytest

from fruitctl.capabilities.context import Context
from fruitctl.capabilities.system import tools as catalog
from fruitctl.capabilities.system.service import SystemService
from fruitctl.capabilities.system.service.log_formats import (
    LogQuery,
    journal_argv,
    parse_journal_line,
    parse_unified_log_line,
    unified_log_argv,
    unified_log_predicate,
)
from fruitctl.capabilities.system.service.metrics import parse_nvidia_smi
from fruitctl.domain.errors import FruitctlError, InvalidParams, Unsupported
from fruitctl.sandbox import find_program

ISO = "%Y-%m-%dT%H:%M:%S%z"


@pytest.fixture
def system() -> SystemService:
    return SystemService(cpu_sample_seconds=0.05)


def is_iso(text: str) -> bool:
    parsed = datetime.strptime(text, ISO)
    return parsed.tzinfo is not None and text[-6] in "+-" and text[-3] == ":"


# -- metrics ---------------------------------------------------------------------------------------


def test_the_metrics_snapshot_has_sane_values(system: SystemService) -> None:
    snap = system.metrics_snapshot()
    assert set(snap) == {
        "captured_at",
        "cpu",
        "load_average",
        "memory",
        "swap",
        "disk",
        "boot_time",
        "uptime_seconds",
        "gpu",
        "gpu_error",
    }
    cpu = snap["cpu"]
    assert 0 <= cpu["percent"] <= 100 and cpu["logical_cores"] >= 1
    assert len(cpu["per_core_percent"]) == cpu["logical_cores"]
    assert set(snap["load_average"]) == {"1m", "5m", "15m"}
    assert all(value >= 0 for value in snap["load_average"].values())
    memory = snap["memory"]
    assert 0 < memory["available_bytes"] <= memory["total_bytes"]
    assert 0 <= memory["used_percent"] <= 100
    assert snap["swap"]["total_bytes"] >= 0
    root = snap["disk"]["root"]
    assert root["path"] == "/" and 0 <= root["free_bytes"] <= root["total_bytes"]
    assert snap["disk"]["home"]["path"] == str(Path.home())
    assert is_iso(snap["captured_at"]) and is_iso(snap["boot_time"])
    assert snap["uptime_seconds"] > 0
    if find_program("nvidia-smi") is None:
        assert (snap["gpu"], snap["gpu_error"]) == (None, None)


def test_a_missing_home_costs_only_its_own_entry(tmp_path: Path) -> None:
    snap = SystemService(cpu_sample_seconds=0.01, home=tmp_path / "nowhere").metrics_snapshot()
    assert snap["disk"]["home"] is None and snap["disk"]["root"] is not None


def test_nvidia_smi_output_is_parsed() -> None:
    text = "NVIDIA GeForce RTX 4090, 37, 1024, 24564\nTesla T4, [N/A], 0, 15360\n\n"
    assert parse_nvidia_smi(text) == [
        {
            "name": "NVIDIA GeForce RTX 4090",
            "utilization_percent": 37.0,
            "memory_used_mb": 1024.0,
            "memory_total_mb": 24564.0,
        },
        {
            "name": "Tesla T4",
            "utilization_percent": None,
            "memory_used_mb": 0.0,
            "memory_total_mb": 15360.0,
        },
    ]


# -- processes -------------------------------------------------------------------------------------


def test_process_health_finds_this_process_by_pid(system: SystemService) -> None:
    health = system.process_health(pid=os.getpid())
    assert health["running"] is True and health["count"] == 1
    (me,) = health["processes"]
    assert me["pid"] == os.getpid() and me["running"] is True
    assert me["rss_bytes"] > 1_000_000 and me["cpu_percent"] >= 0
    assert is_iso(me["started_at"]) and me["uptime_seconds"] >= 0


def test_process_health_finds_this_process_by_exact_name(system: SystemService) -> None:
    name = psutil.Process().name()
    health = system.process_health(name=name)
    assert health["running"] is True
    assert os.getpid() in [p["pid"] for p in health["processes"]]
    assert all(p["name"] == name for p in health["processes"])
    assert system.process_health(name=name[:-1] + "\u2603")["processes"] == []


@pytest.mark.process
def test_a_dead_pid_is_not_running(system: SystemService) -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert system.process_health(pid=child.pid) == {
        "query": {"name": None, "pid": child.pid},
        "running": False,
        "count": 0,
        "processes": [],
    }


def test_an_unknown_name_is_an_answer_not_an_error(system: SystemService) -> None:
    health = system.process_health(name="fruitctl-no-such-process")
    assert (health["running"], health["processes"]) == (False, [])


@pytest.mark.parametrize(
    ("name", "pid"),
    [(None, None), ("python", 1), ("", None), ("a\nb", None), (None, 0), (None, True)],
)
def test_process_health_needs_exactly_one_valid_selector(
    system: SystemService, name: Any, pid: Any
) -> None:
    with pytest.raises(InvalidParams):
        system.process_health(name=name, pid=pid)


# -- logs on this machine --------------------------------------------------------------------------


@pytest.mark.process
def test_read_logs_here_is_well_formed_or_a_clear_error(system: SystemService) -> None:
    try:
        result = system.read_logs(since_minutes=60, level="info", process=None, lines=20)
    except Unsupported as exc:
        assert "journalctl" in exc.message
        pytest.skip("no log reader on this machine")
    except FruitctlError as exc:  # e.g. no journal at all, or not allowed to read it
        assert exc.message and "Traceback" not in exc.message
        return
    assert result["source"] in ("journald", "unified_log")
    assert result["count"] == len(result["entries"]) <= 20
    for entry in result["entries"]:
        assert set(entry) == {"time", "level", "process", "pid", "message"}
        assert entry["level"] in ("emerg", "alert", "crit", "err", "warning", "notice", "info")


@pytest.mark.parametrize(
    "args",
    [
        {"level": "loud"},
        {"level": "ERR"},
        {"process": "sshd; rm -rf /"},
        {"process": '" OR 1 == 1 OR process == "'},
        {"process": "a" * 65},
        {"process": ""},
        {"since_minutes": 0},
        {"since_minutes": 1441},
        {"lines": 1001},
        {"lines": True},
    ],
)
def test_bad_log_arguments_are_invalid_params(system: SystemService, args: dict[str, Any]) -> None:
    call = {"since_minutes": 60, "level": None, "process": None, "lines": 10, **args}
    with pytest.raises(InvalidParams):
        system.read_logs(**call)


def test_each_value_is_one_argv_item() -> None:
    query = LogQuery.checked(30, "warning", "-sshd", 50)
    assert journal_argv(query) == [
        "journalctl",
        "-o",
        "json",
        "--no-pager",
        "-n",
        "50",
        "--since",
        "-30min",
        "-p",
        "warning",
        "-t",
        "-sshd",
    ]
    mac = unified_log_argv(LogQuery.checked(15, "debug", "kernel", 10))
    assert mac == [
        "/usr/bin/log",
        "show",
        "--style",
        "ndjson",
        "--last",
        "15m",
        "--info",
        "--debug",
        "--predicate",
        'process == "kernel"',
    ]


def test_the_macos_predicate_is_built_from_fixed_words() -> None:
    assert unified_log_predicate(LogQuery.checked(5, "err", "WindowServer", 1)) == (
        'process == "WindowServer" AND (messageType == fault OR messageType == error)'
    )
    assert unified_log_predicate(LogQuery.checked(5, None, None, 1)) == ""


# -- journald lines --------------------------------------------------------------------------------

JOURNAL = {
    "__CURSOR": "s=6f1c;i=2a1;b=8e5c;m=1c9d;t=5f3e;x=9a1b",
    "__REALTIME_TIMESTAMP": "1737014400123456",  # 2025-01-16T08:00:00.123456Z
    "__MONOTONIC_TIMESTAMP": "31337000",
    "_BOOT_ID": "8e5c0c8e1c0a4a8f9a0f1b3c2d4e5f60",
    "PRIORITY": "3",
    "SYSLOG_FACILITY": "4",
    "SYSLOG_IDENTIFIER": "sshd",
    "SYSLOG_PID": "4242",
    "_PID": "4242",
    "_UID": "0",
    "_COMM": "sshd",
    "_EXE": "/usr/sbin/sshd",
    "_SYSTEMD_UNIT": "ssh.service",
    "MESSAGE": "error: kex_exchange_identification: Connection closed by remote host",
}


def test_a_journald_line_is_parsed() -> None:
    entry = parse_journal_line(json.dumps(JOURNAL))
    assert entry == {
        "time": "2025-01-16T09:00:00+01:00",  # the host zone (Europe/Rome in the tests)
        "level": "err",
        "process": "sshd",
        "pid": 4242,
        "message": "error: kex_exchange_identification: Connection closed by remote host",
    }


def test_journald_binary_and_missing_fields() -> None:
    kernel = {
        "__REALTIME_TIMESTAMP": "1737014400000000",
        "PRIORITY": "6",
        "_TRANSPORT": "kernel",
        "_COMM": "kworker/0:1",
        "MESSAGE": [104, 105, 32, 255],  # not UTF-8: journald sends the bytes
    }
    entry = parse_journal_line(json.dumps(kernel))
    assert entry is not None
    assert (entry["level"], entry["process"], entry["pid"]) == ("info", "kworker/0:1", None)
    assert entry["message"] == "hi \ufffd"


def test_journald_long_messages_are_cut_and_junk_is_skipped() -> None:
    long = parse_journal_line(json.dumps({**JOURNAL, "MESSAGE": "x" * 5000}))
    assert long is not None and len(long["message"]) == 2000 and long["message"].endswith("…")
    assert parse_journal_line('{"MESSAGE": "cut by the cap') is None
    assert parse_journal_line("-- No entries --") is None
    assert parse_journal_line("[1, 2]") is None
    odd = parse_journal_line(json.dumps({"MESSAGE": "x", "PRIORITY": "12"}))
    assert odd is not None and odd["level"] is None and odd["time"] is None


# -- macOS unified log lines -----------------------------------------------------------------------

MAC = {
    "traceID": 1234567890,
    "eventMessage": "Failed to connect to the daemon: Connection interrupted",
    "eventType": "logEvent",
    "source": None,
    "formatString": "Failed to connect to the daemon: %{public}@",
    "activityIdentifier": 0,
    "subsystem": "com.apple.xpc",
    "category": "connection",
    "threadID": 8402571,
    "senderImageUUID": "D9A41B1C-0F3E-3E52-9A1A-2B2E1E0C4D5F",
    "backtrace": {"frames": [{"imageOffset": 12345, "imageUUID": "D9A41B1C"}]},
    "bootUUID": "",
    "processImagePath": "/System/Library/CoreServices/loginwindow.app/Contents/MacOS/loginwindow",
    "timestamp": "2025-01-16 09:00:00.123456+0100",
    "senderImagePath": "/usr/lib/system/libxpc.dylib",
    "machTimestamp": 99887766554433,
    "messageType": "Error",
    "processImageUUID": "A1B2C3D4-0000-1111-2222-333344445555",
    "processID": 411,
    "senderProgramCounter": 123456,
    "parentActivityIdentifier": 0,
    "timezoneName": "",
}


def test_a_unified_log_line_is_parsed() -> None:
    assert parse_unified_log_line(json.dumps(MAC)) == {
        "time": "2025-01-16T09:00:00+01:00",
        "level": "err",
        "process": "loginwindow",
        "pid": 411,
        "message": "Failed to connect to the daemon: Connection interrupted",
    }
    other_zone = {**MAC, "timestamp": "2025-01-16 03:00:00-0500", "messageType": "Default"}
    entry = parse_unified_log_line(json.dumps(other_zone))
    assert entry is not None  # read in the person's zone, like every time fruitctl answers
    assert (entry["time"], entry["level"]) == ("2025-01-16T09:00:00+01:00", "notice")


def test_unified_log_lines_that_are_not_log_events_are_skipped() -> None:
    assert parse_unified_log_line('{"count":540,"finished":1}') is None
    activity = {**MAC, "eventType": "activityCreateEvent"}
    assert parse_unified_log_line(json.dumps(activity)) is None
    assert parse_unified_log_line("Filtering the log data using") is None
    no_path = parse_unified_log_line(json.dumps({**MAC, "processImagePath": ""}))
    assert no_path is not None and no_path["process"] is None


# -- the tools -------------------------------------------------------------------------------------


def context() -> Context:
    return Context({"system": lambda: SystemService(cpu_sample_seconds=0.01)}, lambda _: None)


def test_the_tools_are_declared_as_the_seed_says() -> None:
    tools = {t.name: t.definition for t in catalog.TOOLS}
    assert list(tools) == ["system_metrics_snapshot", "check_process_health", "read_system_logs"]
    for definition in tools.values():
        assert definition.category == "read_only" and definition.annotations.readOnlyHint
        assert all(p.description for p in definition.parameters)
    assert tools["system_metrics_snapshot"].parameters == []
    assert tools["check_process_health"].risk_level == "low"
    logs = tools["read_system_logs"]
    assert (logs.risk_level, logs.requires_sandbox, logs.timeout_seconds) == ("medium", True, 20)
    defaults = {p.name: p.default for p in logs.parameters}
    assert defaults == {"since_minutes": 60, "level": None, "process": None, "lines": 200}
    props = logs.input_schema["properties"]
    assert props["lines"]["maximum"] == 1000 and props["since_minutes"]["maximum"] == 1440


@pytest.mark.process
def test_the_tool_functions_call_the_service() -> None:
    ctx = context()
    by_name = {t.name: t for t in catalog.TOOLS}
    metrics = by_name["system_metrics_snapshot"]
    assert "cpu" in metrics.function(metrics.input_model(), ctx)
    health = by_name["check_process_health"]
    found = health.function(health.input_model(pid=os.getpid()), ctx)
    assert found["running"] is True
    logs = by_name["read_system_logs"]
    if find_program("journalctl") is None:
        pytest.skip("no journalctl on this machine")
    result = logs.function(logs.input_model(since_minutes=5, lines=5), ctx)
    assert result["count"] <= 5


def test_the_sandboxed_entry_point_validates_its_payload() -> None:
    with pytest.raises(InvalidParams, match="surprise"):
        catalog.read_logs_in_child({"surprise": 1})
    with pytest.raises(InvalidParams):
        catalog.read_logs_in_child({"process": "a b"})
