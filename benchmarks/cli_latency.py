"""What one ``fruitctl`` command costs an agent that calls it once per step, against the least a
Python process can do to send the same request to the same daemon.

Run with ``.venv/bin/python benchmarks/cli_latency.py`` (part of ``make bench``). One daemon
(``python -m fruitctl serve``) on the demo's sample data and three pending proposals; each
command is a new process:

- ``fruitctl reminders list`` and ``fruitctl proposals list`` (each as text, and ``--json`` as
  an agent asks), ``fruitctl lists`` and ``fruitctl rpc '{…system.ping…}'`` with the daemon
  answering;
- its floor: ``python -c`` that opens the daemon's socket and sends the same JSON-RPC lines the
  command sends (``session.identify`` with the token, then ``tools.call`` of the same tool and
  arguments, or ``proposals.list`` with the same status and limit; ``system.ping`` for
  ``rpc``), reads the answer and exits;
- in-process: ``FRUITCTL_IN_PROCESS=1 fruitctl reminders list`` - no daemon used, the gateway
  built in the command's own process; beside it, shown but not checked, what only importing the
  libraries that path cannot do without takes (``python -c "import sqlalchemy,
  pydantic_settings"``: the stores' SQL toolkit and the configuration's reader).

Rounds alternate floor and command so the drifts of this shared machine hit both alike. Wall
time and CPU time (user+sys of the child) are both recorded, p50 of each. Checks (PASS/FAIL,
a FAIL exits 1): each command's wall p50 within 3x its floor's, the in-process command's
wall p50 under 0.25 s. Writes ``benchmarks/results/cli_latency.json``.
"""

from __future__ import annotations

import getpass
import json
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from checks_file import print_checks, write_results

from fruitctl.capabilities.reminders.inputs import QueryReminders

RESULTS = Path(__file__).parent / "results" / "cli_latency.json"
ROUNDS, WARMUP = 15, 2
RATIO_TARGET, IN_PROCESS_TARGET_S = 3.0, 0.25
PING = {"jsonrpc": "2.0", "id": 1, "method": "system.ping"}


# What each command sends: `reminders list` sends its input model's defaults.
def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"name": tool, "arguments": arguments}


LIST_ARGS = {
    key: str(QueryReminders.model_fields[key].default)
    if key != "limit"
    else QueryReminders.model_fields[key].default
    for key in ("status", "sortBy", "limit")
}
PROPOSALS_PARAMS = {"status": "pending", "limit": 50}  # `proposals list`'s option defaults
COMMANDS: dict[str, tuple[list[str], str | None, dict[str, Any] | None]] = {
    # name: (arguments, method sent after session.identify, its params) - none: system.ping
    "reminders list": (["reminders", "list"], "tools.call", call("query_reminders", LIST_ARGS)),
    "reminders list --json": (
        ["reminders", "list", "--json"],
        "tools.call",
        call("query_reminders", LIST_ARGS),
    ),
    "lists": (["lists"], "tools.call", call("get_lists", {})),
    "proposals list": (["proposals", "list"], "proposals.list", PROPOSALS_PARAMS),
    "proposals list --json": (["proposals", "list", "--json"], "proposals.list", PROPOSALS_PARAMS),
    "rpc system.ping": (["rpc", json.dumps(PING)], None, None),
}
IN_PROCESS = "in-process: reminders list"
IN_PROCESS_LIBRARIES = "in-process: its libraries' import alone"

FLOOR = """
import json, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(sys.argv[1])
reader = sock.makefile("rb")
for line in sys.argv[2:]:
    sock.sendall(line.encode() + b"\\n")
    answer = json.loads(reader.readline())
    assert "result" in answer, answer
sys.stdout.write(json.dumps(answer["result"]) + "\\n")
"""


def floor_lines(method: str | None, params: dict[str, Any] | None, token: str) -> list[str]:
    if method is None:
        return [json.dumps(PING)]
    user = getpass.getuser()
    identify = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "session.identify",
        "params": {"kind": "human", "name": f"cli:{user}", "token": token},
    }
    request = {"jsonrpc": "2.0", "id": 2, "method": method, "params": params}
    return [json.dumps(identify), json.dumps(request)]


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user+sys) seconds of one child process, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, timeout=120)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv[2:]} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def wait_for(path: Path, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"fruitctl serve exited with {proc.returncode}")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.connect(str(path))
            if path.with_suffix(".token").exists():  # written just after the socket is bound
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit("fruitctl serve did not start")


def seed(home: Path) -> None:
    from fruitctl import bootstrap
    from fruitctl.config import Config, Settings
    from fruitctl.domain.actors import Actor
    from fruitctl.paths import Paths

    app = bootstrap.build(Config(Settings(), Paths.resolve({"FRUITCTL_HOME": str(home)})))
    try:
        app.demo.seed()
        agent = Actor("agent", "bench")
        for title in ("Call the plumber", "Renew the passport", "Book the dentist"):
            filed = app.gateway.invoke("create_reminders", {"reminders": [{"title": title}]}, agent)
            assert filed.output["status"] == "pending"  # a table for `proposals list` to draw
    finally:
        app.close()


def p50(values: list[float]) -> float:
    return round(statistics.median(values), 4)


def measure(home: Path, env: dict[str, str]) -> dict[str, dict[str, float]]:
    sock = home / "run" / "fruitctl.sock"
    token = (home / "run" / "fruitctl.token").read_text().strip()
    fruitctl = [sys.executable, "-m", "fruitctl"]
    runs: dict[str, list[str]] = {}
    for name, (args, method, params) in COMMANDS.items():
        runs[name] = [*fruitctl, *args]
        runs[f"floor: {name}"] = [
            sys.executable,
            "-c",
            FLOOR,
            str(sock),
            *floor_lines(method, params, token),
        ]
    in_process_env = {**env, "FRUITCTL_IN_PROCESS": "1"}
    libraries = [sys.executable, "-c", "import sqlalchemy, pydantic_settings"]
    walls: dict[str, list[float]] = {name: [] for name in [*runs, IN_PROCESS, IN_PROCESS_LIBRARIES]}
    cpus: dict[str, list[float]] = {name: [] for name in walls}
    for round_ in range(WARMUP + ROUNDS):
        for name, argv in runs.items():
            wall, cpu = timed(argv, env)
            if round_ >= WARMUP:
                walls[name].append(wall)
                cpus[name].append(cpu)
        for name, argv in (
            (IN_PROCESS, [*fruitctl, "reminders", "list"]),
            (IN_PROCESS_LIBRARIES, libraries),
        ):
            wall, cpu = timed(argv, in_process_env)
            if round_ >= WARMUP:
                walls[name].append(wall)
                cpus[name].append(cpu)
    return {name: {"wall_p50_s": p50(walls[name]), "cpu_p50_s": p50(cpus[name])} for name in walls}


def checks(report: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    found = []
    for name in COMMANDS:
        floor = report[f"floor: {name}"]
        ratio = report[name]["wall_p50_s"] / floor["wall_p50_s"]
        cpu_ratio = report[name]["cpu_p50_s"] / max(floor["cpu_p50_s"], 1e-6)
        found.append(
            {
                "name": f"{name}: wall p50 / floor wall p50",
                "value": round(ratio, 2),
                "cpu_ratio": round(cpu_ratio, 2),
                "target": RATIO_TARGET,
                "passed": ratio <= RATIO_TARGET,
            }
        )
    in_process = report[IN_PROCESS]["wall_p50_s"]
    found.append(
        {
            "name": f"{IN_PROCESS}: wall p50 s",
            "value": in_process,
            "target": IN_PROCESS_TARGET_S,
            "passed": in_process <= IN_PROCESS_TARGET_S,
        }
    )
    return found


def main() -> int:
    home = Path(tempfile.mkdtemp(prefix="frc", dir="/tmp"))  # AF_UNIX paths are short
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRUITCTL_")}
    env["FRUITCTL_HOME"] = str(home)
    os.environ.update(env)
    seed(home)
    daemon = subprocess.Popen(
        [sys.executable, "-m", "fruitctl", "serve", "--port", "0"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(home / "run" / "fruitctl.sock", daemon)
        report = measure(home, env)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(30)
        shutil.rmtree(home, ignore_errors=True)
    found = checks(report)
    show(report, found)
    return 0 if all(check["passed"] for check in found) else 1


def show(report: dict[str, dict[str, float]], found: list[dict[str, Any]]) -> None:
    print(f"{'':36}{'wall p50 s':>12}{'cpu p50 s':>12}")
    for name, r in report.items():
        print(f"{name:36}{r['wall_p50_s']:12.4f}{r['cpu_p50_s']:12.4f}")
    print_checks(found)
    write_results(
        RESULTS,
        {"rounds": ROUNDS, "warmup": WARMUP, "reminders_list_args": LIST_ARGS},
        report,
        found,
    )


if __name__ == "__main__":
    raise SystemExit(main())
