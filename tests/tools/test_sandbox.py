"""The sandbox with real processes: deadlines kill whole process groups, the kernel enforces the
limits, the environment is scrubbed, output is capped, and run_in_child carries results and
errors (never tracebacks) across the process boundary."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sandboxed import HOLD, python, released

from fruitctl.capabilities.system.tools import ReadSystemLogsInput
from fruitctl.domain.errors import ExecutionFailed, InvalidParams, Timeout, Unsupported
from fruitctl.sandbox import (
    SAFE_PATH,
    Limits,
    error_from_reply,
    find_program,
    python_env,
    run_command,
    run_in_child,
)
from fruitctl.sandbox.reaping import MARK
from fruitctl.tools.inputs import parse

# Each test here starts another process, or shares the one the module starts.
pytestmark = pytest.mark.process

LOGS = "fruitctl.capabilities.system.tools:read_logs_in_child"


# -- run_command -----------------------------------------------------------------------------------

RUNAWAY = (
    HOLD
    + """
folder = sys.argv[1]
if os.fork() == 0:
    hold(folder + "/grandchild")
    while True:
        pass
hold(folder + "/child")
wait_for(folder + "/grandchild")
print("started", flush=True)
while True:
    time.sleep(0.01)
"""
)


def test_a_timeout_kills_the_whole_process_group_promptly(tmp_path: Path) -> None:
    started = time.monotonic()
    result = run_command(python(RUNAWAY, str(tmp_path)), timeout=1.0)
    elapsed = time.monotonic() - started
    assert result.timed_out and not result.truncated
    assert result.exit_code == -signal.SIGKILL
    assert result.stdout == "started\n"  # what came before the deadline is kept
    assert elapsed < 2.5 and 900 <= result.duration_ms < 2500
    assert released(tmp_path / "child") and released(tmp_path / "grandchild")


def test_the_child_leads_a_session_of_its_own() -> None:
    code = "import os; print(os.getpid(), os.getpgrp(), os.getsid(0))"
    result = run_command(python(code), timeout=10)
    pid, group, session = map(int, result.stdout.split())
    assert pid == group == session
    assert session != os.getsid(0)


def test_limits_are_set_in_the_child() -> None:
    code = (
        "import resource as r\n"
        "for name in ('RLIMIT_CPU', 'RLIMIT_AS', 'RLIMIT_FSIZE', 'RLIMIT_NOFILE', 'RLIMIT_CORE'):\n"
        "    print(name, *r.getrlimit(getattr(r, name)))\n"
    )
    limits = Limits(cpu_seconds=7, memory_mb=900, file_size_mb=3, open_files=50)
    result = run_command(python(code), timeout=10, limits=limits)
    seen = {
        line.split()[0]: tuple(map(int, line.split()[1:])) for line in result.stdout.splitlines()
    }
    assert seen["RLIMIT_CPU"] == (7, 8)
    assert seen["RLIMIT_AS"] == (900 * 2**20, 900 * 2**20)
    assert seen["RLIMIT_FSIZE"] == (3 * 2**20, 3 * 2**20)
    assert seen["RLIMIT_NOFILE"] == (50, 50)
    assert seen["RLIMIT_CORE"] == (0, 0)


@pytest.mark.slow
def test_the_cpu_limit_kills_a_busy_loop() -> None:
    started = time.monotonic()
    result = run_command(python("while True: pass"), timeout=15, limits=Limits(cpu_seconds=1))
    assert not result.timed_out
    assert result.exit_code in (-signal.SIGXCPU, -signal.SIGKILL)
    assert time.monotonic() - started < 10  # 1 s of CPU, however busy the machine


def test_the_memory_limit_makes_a_big_allocation_fail() -> None:
    if sys.platform == "darwin":
        pytest.skip("macOS does not enforce RLIMIT_AS")
    code = (
        "try:\n"
        "    block = bytearray(1024 * 1024 * 1024)\n"
        "except MemoryError:\n"
        "    print('refused'); raise SystemExit(3)\n"
        "print('allocated')\n"
    )
    result = run_command(python(code), timeout=10, limits=Limits(memory_mb=256))
    assert (result.stdout.strip(), result.exit_code) == ("refused", 3)


def test_the_file_size_limit_stops_a_big_write(tmp_path: Path) -> None:
    target = tmp_path / "big.bin"
    # Python ignores SIGXFSZ, so the write fails with EFBIG instead of the process being killed.
    code = (
        "import sys\n"
        "try:\n"
        "    with open(sys.argv[1], 'wb') as out:\n"
        "        for _ in range(20):\n"
        "            out.write(b'x' * 1024 * 1024)\n"
        "except OSError as exc:\n"
        "    print(exc.strerror); raise SystemExit(4)\n"
    )
    result = run_command(python(code, str(target)), timeout=10, limits=Limits(file_size_mb=1))
    assert result.exit_code == 4 and "large" in result.stdout.lower()
    assert target.stat().st_size <= 1024 * 1024


def test_a_program_past_the_file_size_limit_is_killed_by_sigxfsz(tmp_path: Path) -> None:
    if find_program("dd") is None:
        pytest.skip("no dd(1) on this machine")
    target = tmp_path / "big.bin"
    # dd is a C program with SIGXFSZ at its default action: the kernel kills it at the limit.
    argv = ["dd", "if=/dev/zero", f"of={target}", "bs=1048576", "count=3"]
    result = run_command(argv, timeout=10, limits=Limits(file_size_mb=1))
    assert result.exit_code == -signal.SIGXFSZ
    assert target.stat().st_size <= 1024 * 1024


def test_the_environment_is_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GATEWAY_API_TOKEN", "hunter2")
    monkeypatch.setenv("LD_PRELOAD", "/tmp/evil.so")
    result = run_command(["env"], timeout=10, env={"EXTRA_SETTING": "on"})
    seen = dict(line.split("=", 1) for line in result.stdout.splitlines())
    seen.pop(MARK, None)  # the process-tree walk's mark, where it is the isolation
    assert "hunter2" not in result.stdout and "GATEWAY_API_TOKEN" not in seen
    assert "LD_PRELOAD" not in seen and "HOME" not in seen
    assert seen == {
        "PATH": SAFE_PATH,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "Europe/Rome",  # conftest sets it: the zone is the one thing worth passing on
        "EXTRA_SETTING": "on",
    }


def test_stdin_is_empty() -> None:
    result = run_command(python("import sys; print(repr(sys.stdin.read()))"), timeout=10)
    assert result.stdout.strip() == "''"


def test_output_beyond_the_cap_is_truncated_and_the_child_killed(tmp_path: Path) -> None:
    code = HOLD + "hold(sys.argv[1])\nwhile True:\n    sys.stdout.write('x' * 4096)\n"
    started = time.monotonic()
    result = run_command(python(code, str(tmp_path / "child")), timeout=10, max_output_bytes=10_000)
    assert result.truncated and not result.timed_out
    assert result.stdout == "x" * 10_000
    assert result.exit_code == -signal.SIGKILL
    assert time.monotonic() - started < 3
    assert released(tmp_path / "child")


def test_stdout_and_stderr_are_read_together() -> None:
    # 1 MB on stderr before anything on stdout: reading one stream at a time would deadlock.
    code = "import sys; sys.stderr.write('e' * 1_000_000); sys.stdout.write('done')"
    result = run_command(python(code), timeout=10, max_output_bytes=2_000_000)
    assert (result.stdout, len(result.stderr), result.exit_code) == ("done", 1_000_000, 0)


def test_invalid_utf8_is_replaced_not_fatal() -> None:
    result = run_command(python("import sys; sys.stdout.buffer.write(b'ok \\xff')"), timeout=10)
    assert result.stdout == "ok \ufffd"


def test_a_missing_program_is_unsupported_and_named() -> None:
    with pytest.raises(Unsupported, match="fruitctl-no-such-program"):
        run_command(["fruitctl-no-such-program", "--help"], timeout=5)


def test_arguments_are_never_parsed_by_a_shell(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    result = run_command(["echo", f"; touch {marker}", "$(id)"], timeout=5)
    assert result.stdout == f"; touch {marker} $(id)\n"
    assert not marker.exists()


def test_bad_calls_are_invalid_params() -> None:
    with pytest.raises(InvalidParams):
        run_command([], timeout=5)
    with pytest.raises(InvalidParams):
        run_command(["echo"], timeout=0)
    with pytest.raises(InvalidParams):
        run_command(["echo"], timeout=5, env={"A=B": "c"})
    with pytest.raises(InvalidParams):
        Limits(cpu_seconds=0)


def test_limits_never_ask_for_more_than_the_hard_limit() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard == resource.RLIM_INFINITY:
        pytest.skip("no hard limit on open files here")
    code = "import resource as r; print(*r.getrlimit(r.RLIMIT_NOFILE))"
    result = run_command(python(code), timeout=10, limits=Limits(open_files=hard + 1000))
    assert result.stdout.split() == [str(hard), str(hard)]


# -- run_in_child ----------------------------------------------------------------------------------


def test_run_in_child_round_trip() -> None:
    if find_program("journalctl") is None and not Path("/usr/bin/log").exists():
        pytest.skip("no log reader: read_logs_in_child has nothing to return")
    payload = {"since_minutes": 5, "lines": 3}
    result = run_in_child(LOGS, payload, timeout=15, limits=Limits())
    assert result["since_minutes"] == 5 and result["source"] in ("journald", "unified_log")
    assert isinstance(result["entries"], list) and len(result["entries"]) <= 3


def test_an_error_raised_in_the_child_arrives_as_the_same_class_and_message() -> None:
    payload = {"since_minutes": 5, "level": "loud"}
    with pytest.raises(InvalidParams) as here:
        parse(ReadSystemLogsInput, payload, "read_system_logs")
    with pytest.raises(InvalidParams) as there:
        run_in_child(LOGS, payload, timeout=15, limits=Limits())
    assert type(there.value) is InvalidParams
    assert there.value.message == here.value.message
    assert there.value.details == {"field": "level"}
    assert "Traceback" not in there.value.message


def test_a_child_that_crashes_is_execution_failed() -> None:
    # 20 MB of address space is too little for Python to start: no reply, a failed child.
    with pytest.raises(ExecutionFailed) as failed:
        run_in_child(LOGS, {}, timeout=15, limits=Limits(memory_mb=20))
    assert "no reply" in failed.value.message
    assert "Traceback" not in failed.value.message and "MemoryError" not in failed.value.message


def test_a_child_out_of_time_is_a_retryable_timeout() -> None:
    started = time.monotonic()
    with pytest.raises(Timeout) as late:
        run_in_child(LOGS, {}, timeout=0.05, limits=Limits())
    assert late.value.retryable
    assert time.monotonic() - started < 1


def test_targets_outside_fruitctl_are_refused_by_the_parent() -> None:
    for target in ("os:system", "subprocess:run", "fruitctlx.evil:run", "fruitctl:", "x"):
        with pytest.raises(InvalidParams, match="refused"):
            run_in_child(target, {}, timeout=5, limits=Limits())


def test_targets_outside_fruitctl_are_refused_by_the_child_too(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    request = {"target": "os:system", "payload": f"touch {marker}"}
    reply = subprocess.run(
        [sys.executable, "-P", "-m", "fruitctl.sandbox"],
        input=json.dumps(request).encode(),
        capture_output=True,
        env=python_env(),
        timeout=15,
        check=True,
    )
    error = json.loads(reply.stdout)["error"]
    assert error["code"] == "invalid_params" and "refused" in error["message"]
    assert not marker.exists()


def test_unknown_targets_and_bad_payloads() -> None:
    with pytest.raises(InvalidParams, match="does not exist"):
        run_in_child("fruitctl.no_such_module:run", {}, timeout=15, limits=Limits())
    with pytest.raises(InvalidParams, match="JSON"):
        run_in_child(LOGS, {"when": object()}, timeout=15, limits=Limits())


def test_the_python_child_gets_what_it_needs_and_no_secret(
    monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    monkeypatch.setenv("GATEWAY_API_TOKEN", "hunter2")
    monkeypatch.setenv("FRUITCTL_WEB__PROVIDER", "none")
    env = python_env()
    assert "GATEWAY_API_TOKEN" not in env and "hunter2" not in env.values()
    assert env["FRUITCTL_HOME"] == str(home)
    assert env["FRUITCTL_WEB__PROVIDER"] == "none"
    assert env["PATH"] == SAFE_PATH and env["HOME"] == os.environ["HOME"]
    assert set(env) <= {
        "PATH",
        "LANG",
        "LC_ALL",
        "TZ",
        "HOME",
        "PYTHONPATH",
        *(key for key in os.environ if key.startswith("FRUITCTL_")),
    }


def test_error_replies_map_by_code() -> None:
    assert type(error_from_reply({"code": "timeout", "message": "slow"})) is Timeout
    unknown = error_from_reply({"code": "made_up", "message": "odd"})
    assert (type(unknown), unknown.message) == (ExecutionFailed, "odd")
    assert type(error_from_reply("garbage")) is ExecutionFailed
