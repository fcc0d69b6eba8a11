"""What ``fruitctl mcp`` costs over stdio, against the floor of any Python MCP server.

Run with ``.venv/bin/python benchmarks/mcp_stdio.py`` (part of ``make bench``). Two servers, each
a child process spoken to in newline-delimited JSON-RPC on raw pipes (no client library on the
measuring side, so client costs do not blur the comparison: replies are found with one scan per
chunk read and parsed with orjson - 0.07 ms for the 40 KB answer here, where Node's
``JSON.parse``, which most MCP clients use, takes 0.09 ms and the stdlib's ``json`` 0.17 ms):

- floor: ``benchmarks/mcp_floor_server.py``, the SDK's low-level ``Server`` with one ``echo`` tool;
- fruitctl: ``python -m fruitctl mcp`` on a store of 10,000 reminders, ``query_reminders`` with
  default arguments (the default list's 50 newest open reminders);
- a second floor: the same SDK server answering ``payload`` with exactly the result fruitctl
  gives (~30 KB of JSON as text plus structuredContent, computed once at start). The echo floor
  is the target the issue sets; this one shows how much of the gap is the answer's size (encoding,
  the pipe, the client's parse) rather than fruitctl's own work.

Both are timed in the same run: 200 sequential ``tools/call`` requests each, in alternating rounds
so that drifts of this shared machine hit both alike (p50/p99, and the server's own CPU time per
call, which no client cost touches), and the time from spawn to the ``initialize`` answer
(median of 7 spawns each, alternating) with the server's CPU time (user + system) by then: the
start-up checks compare both, since a busy machine stretches wall time more than CPU time. The
time to the first ``tools/list`` answer is shown too, not checked: ``fruitctl mcp`` builds its
gateway (the catalog, the store, recovery of half-done approvals) when the client first needs
it, not before ``initialize`` is answered. Prints a table and four checks
(PASS/FAIL; a FAIL exits 1), writes ``benchmarks/results/mcp_stdio.json``.
"""

from __future__ import annotations

import json
import os
import platform
import random
import select
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import psutil
from rich.console import Console
from rich.table import Table
from store_scale import SEED, seed_store

RESULTS = Path(__file__).parent / "results" / "mcp_stdio.json"
REMINDERS = 10_000
CALLS, ROUNDS = 200, 10  # CALLS per server, in ROUNDS alternating batches
WARMUP_CALLS = 20
SPAWNS = 7
CALL_TARGET, STARTUP_TARGET = 1.3, 1.2  # fruitctl / floor, at most
READ_TIMEOUT_S, EXIT_TIMEOUT_S = 60.0, 10.0
PROTOCOL = "2025-11-25"  # the initialize handshake, as today's MCP clients do it

FLOOR, FRUITCTL = "floor: SDK echo server", "fruitctl mcp: query_reminders"
SAME_PAYLOAD = "floor: SDK server, same payload"
FLOOR_SERVER = [sys.executable, str(Path(__file__).with_name("mcp_floor_server.py"))]
COMMANDS = {
    FLOOR: FLOOR_SERVER,
    SAME_PAYLOAD: FLOOR_SERVER,
    FRUITCTL: [sys.executable, "-m", "fruitctl", "mcp"],
}
CALL_PARAMS = {
    FLOOR: {"name": "echo", "arguments": {"text": "hello"}},
    SAME_PAYLOAD: {"name": "payload", "arguments": {}},
    FRUITCTL: {"name": "query_reminders", "arguments": {}},
}


@dataclass(frozen=True)
class Measurement:
    name: str
    calls: int
    call_p50_ms: float
    call_p99_ms: float
    server_cpu_ms: float
    """The server process's CPU time (user + system) per timed call."""
    spawns: int
    startup_median_ms: float
    startup_min_ms: float
    startup_cpu_ms: float
    """The server's CPU time (user + system) when ``initialize`` was answered, median."""
    first_list_ms: float
    """From spawn to the first ``tools/list`` answer, median (shown, not checked)."""


@dataclass(frozen=True)
class Check:
    name: str
    value: float
    threshold: float
    passed: bool


# -- a server on raw pipes ---------------------------------------------------------------------


class Child:
    """One MCP server process and its JSON-RPC line protocol; replies are read with a timeout."""

    def __init__(self, name: str, command: Sequence[str], env: dict[str, str]) -> None:
        self.name = name
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            bufsize=0,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.fd = self.proc.stdin, self.proc.stdout.fileno()
        self.buffer = bytearray()
        self.next_id = 0
        self.process = psutil.Process(self.proc.pid)

    def send(self, message: dict[str, Any]) -> None:
        self.stdin.write(orjson.dumps(message) + b"\n")

    def line(self) -> bytes:
        deadline = time.monotonic() + READ_TIMEOUT_S
        scanned = 0  # the bytes before it hold no newline: each chunk is scanned once
        while (end := self.buffer.find(b"\n", scanned)) < 0:
            scanned = len(self.buffer)
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise TimeoutError(f"{self.name}: no reply within {READ_TIMEOUT_S}s")
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise RuntimeError(f"{self.name}: closed stdout (exit {self.proc.poll()})")
            self.buffer += chunk
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        return line

    def cpu_s(self) -> float:
        """The server's CPU time so far, user + system, in seconds."""
        times = self.process.cpu_times()
        return float(times.user + times.system)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            reply: dict[str, Any] = orjson.loads(self.line())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{self.name}: {method}: {reply['error']}")
                return reply["result"]  # type: ignore[no-any-return]

    def initialize(self) -> None:
        client = {"name": "mcp-stdio-bench", "version": "1"}
        params = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": client}
        self.request("initialize", params)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self) -> None:
        """Close stdin, as a client does; kill only a server that does not exit on its own."""
        self.stdin.close()
        try:
            self.proc.wait(timeout=EXIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        assert self.proc.stdout is not None
        self.proc.stdout.close()


@contextmanager
def running(name: str, env: dict[str, str]) -> Iterator[Child]:
    child = Child(name, COMMANDS[name], env)
    try:
        yield child
    finally:
        child.close()


# -- the measurements --------------------------------------------------------------------------


def seed(home: Path, console: Console) -> None:
    """10,000 reminders in a fresh store (store_scale's data: most in the default list)."""
    from fruitctl import bootstrap

    started = time.perf_counter()
    app = bootstrap.build()
    try:
        seed_store(app.backend, REMINDERS, random.Random(SEED + REMINDERS))  # type: ignore[arg-type]
        payload = app.reminders.query_reminders({})
    finally:
        app.close()
    (home / "payload.json").write_text(json.dumps(payload, ensure_ascii=False))
    console.print(f"[dim]seeded {REMINDERS:,} reminders in {time.perf_counter() - started:.1f}s")


@dataclass(frozen=True)
class Startup:
    wall_ms: float
    """Spawn to the ``initialize`` answer."""
    cpu_ms: float
    """The server's CPU time then."""
    first_list_ms: float
    """Spawn to the first ``tools/list`` answer."""


def startup(name: str, env: dict[str, str]) -> Startup:
    started = time.perf_counter()
    with running(name, env) as child:
        child.initialize()
        wall = time.perf_counter() - started
        cpu = child.cpu_s()
        child.request("tools/list", {})
        listed = time.perf_counter() - started
    return Startup(wall * 1000, cpu * 1000, listed * 1000)


def startups(env: dict[str, str]) -> dict[str, list[Startup]]:
    samples: dict[str, list[Startup]] = {FLOOR: [], FRUITCTL: []}
    for _ in range(SPAWNS):
        for name in samples:
            samples[name].append(startup(name, env))
    return samples


def check_reply(name: str, result: dict[str, Any]) -> None:
    assert not result.get("isError"), result
    if name in (FRUITCTL, SAME_PAYLOAD):
        assert len(result["structuredContent"]["result"]) == 50, "expected 50 reminders"


def timed_calls(child: Child, name: str, count: int) -> list[float]:
    samples = []
    for _ in range(count):
        started = time.perf_counter_ns()
        child.request("tools/call", CALL_PARAMS[name])
        samples.append((time.perf_counter_ns() - started) / 1e6)
    return samples


def calls(env: dict[str, str]) -> tuple[dict[str, list[float]], dict[str, float]]:
    """CALLS sequential calls per server, in alternating rounds (the order flips every round);
    and each server's CPU ms per call over all its rounds (a server waiting for its turn uses
    none, and one total keeps the clock's tick small against it)."""
    samples: dict[str, list[float]] = {FLOOR: [], SAME_PAYLOAD: [], FRUITCTL: []}
    with (
        running(FLOOR, env) as floor,
        running(SAME_PAYLOAD, env) as same,
        running(FRUITCTL, env) as fruitctl,
    ):
        children = {FLOOR: floor, SAME_PAYLOAD: same, FRUITCTL: fruitctl}
        for name, child in children.items():
            child.initialize()
            check_reply(name, child.request("tools/call", CALL_PARAMS[name]))
            timed_calls(child, name, WARMUP_CALLS)
        started = {name: child.cpu_s() for name, child in children.items()}
        order = list(children)
        for _ in range(ROUNDS):
            for name in order:
                samples[name].extend(timed_calls(children[name], name, CALLS // ROUNDS))
            order.reverse()
        cpu = {
            name: (child.cpu_s() - started[name]) * 1000 / len(samples[name])
            for name, child in children.items()
        }
    return samples, cpu


def percentile(samples: Sequence[float], pct: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[pct - 1]


def summarize(
    call: dict[str, list[float]], cpu: dict[str, float], spawn: dict[str, list[Startup]]
) -> list[Measurement]:
    spawn = {SAME_PAYLOAD: spawn[FLOOR], **spawn}  # the same program: one start-up to measure
    return [
        Measurement(
            name=name,
            calls=len(call[name]),
            call_p50_ms=statistics.median(call[name]),
            call_p99_ms=percentile(call[name], 99),
            server_cpu_ms=cpu[name],
            spawns=len(spawn[name]),
            startup_median_ms=statistics.median(s.wall_ms for s in spawn[name]),
            startup_min_ms=min(s.wall_ms for s in spawn[name]),
            startup_cpu_ms=statistics.median(s.cpu_ms for s in spawn[name]),
            first_list_ms=statistics.median(s.first_list_ms for s in spawn[name]),
        )
        for name in (FLOOR, SAME_PAYLOAD, FRUITCTL)
    ]


# -- checks and reporting ----------------------------------------------------------------------


def checks(results: Sequence[Measurement]) -> list[Check]:
    floor, same, fruitctl = results
    call = fruitctl.call_p50_ms / floor.call_p50_ms
    own = fruitctl.call_p50_ms / same.call_p50_ms
    startup = fruitctl.startup_median_ms / floor.startup_median_ms
    startup_cpu = fruitctl.startup_cpu_ms / floor.startup_cpu_ms
    return [
        Check("query_reminders p50 / floor p50 (calls)", call, CALL_TARGET, call <= CALL_TARGET),
        Check(
            "query_reminders p50 / same-payload floor p50 (calls)",
            own,
            CALL_TARGET,
            own <= CALL_TARGET,
        ),
        Check(
            "fruitctl / floor (spawn to initialize answered, medians)",
            startup,
            STARTUP_TARGET,
            startup <= STARTUP_TARGET,
        ),
        Check(
            "fruitctl / floor (server CPU when initialize answered, medians)",
            startup_cpu,
            STARTUP_TARGET,
            startup_cpu <= STARTUP_TARGET,
        ),
    ]


def print_table(console: Console, results: Sequence[Measurement]) -> None:
    table = Table(title=f"MCP over stdio: {CALLS} sequential calls, {SPAWNS} spawns each")
    columns = (
        "server",
        "call p50 ms",
        "call p99 ms",
        "server CPU ms/call",
        "startup median ms",
        "startup min ms",
        "startup CPU ms",
        "first list ms",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "server" else "right", no_wrap=True)
    for m in results:
        table.add_row(
            m.name,
            f"{m.call_p50_ms:,.3f}",
            f"{m.call_p99_ms:,.3f}",
            f"{m.server_cpu_ms:,.3f}",
            f"{m.startup_median_ms:,.1f}",
            f"{m.startup_min_ms:,.1f}",
            f"{m.startup_cpu_ms:,.1f}",
            f"{m.first_list_ms:,.1f}",
        )
    console.print(table)


def print_checks(console: Console, found: Sequence[Check]) -> None:
    for check in found:
        word = "[green]PASS[/]" if check.passed else "[red]FAIL[/]"
        console.print(f"{word}  {check.name}: {check.value:,.2f}x (target <= {check.threshold}x)")


def machine() -> dict[str, Any]:
    from importlib.metadata import version

    return {
        "python": sys.version.split()[0],
        "mcp": version("mcp"),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
    }


def write_json(results: Sequence[Measurement], found: Sequence[Check]) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "benchmark": "mcp_stdio",
        "generated_at": datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": machine(),
        "config": {
            "reminders": REMINDERS,
            "calls": CALLS,
            "rounds": ROUNDS,
            "warmup_calls": WARMUP_CALLS,
            "spawns": SPAWNS,
            "protocol": PROTOCOL,
            "commands": {name: command[1:] for name, command in COMMANDS.items()},
            "call_params": CALL_PARAMS,
        },
        "results": [asdict(m) for m in results],
        "checks": [asdict(c) for c in found],
    }
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


def main() -> int:
    console = Console()
    if not console.is_terminal:  # piped or in CI: do not squeeze the table into 80 columns
        console.width = 140
    with tempfile.TemporaryDirectory(prefix="fruitctl-bench-") as home:
        os.environ["FRUITCTL_HOME"] = home
        seed(Path(home), console)
        env = dict(os.environ, FLOOR_PAYLOAD=str(Path(home) / "payload.json"))
        call_samples, cpu = calls(env)
        # Start-up without the payload file, so the floor reads nothing fruitctl does not.
        spawn_samples = startups({k: v for k, v in env.items() if k != "FLOOR_PAYLOAD"})
    results = summarize(call_samples, cpu, spawn_samples)
    print_table(console, results)
    found = checks(results)
    print_checks(console, found)
    write_json(results, found)
    console.print(f"[dim]results written to {RESULTS}")
    return 0 if all(c.passed for c in found) else 1


if __name__ == "__main__":
    sys.exit(main())
