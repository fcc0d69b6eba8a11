"""What ``fruitctl serve`` costs on its Unix socket, against a bare asyncio JSON echo server.

Run with ``.venv/bin/python benchmarks/socket_rpc.py`` (part of ``make bench``). Two servers, each
its own process, spoken to with plain blocking sockets (one JSON line out, one line back):

- floor: this file run with ``--floor``: an asyncio ``Protocol`` that splits lines, parses each
  as JSON and answers ``{"jsonrpc", "id", "result"}`` - the least a newline-JSON server does;
- fruitctl: ``python -m fruitctl serve`` on a store of 10,000 reminders (``store_scale``'s data),
  asked ``system.ping`` and ``reminders.open`` (200 items, the seed's default).

Latency: one client, sequential requests in alternating rounds (floor, ping, open) so drifts of
this shared machine hit all alike; p50/p99. Throughput: 16 client processes for a few seconds
against each. Checks (PASS/FAIL; a FAIL exits 1): ping p50 within 1.5x of the floor's,
reminders.open p50 under 10x. Writes ``benchmarks/results/socket_rpc.json``.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import random
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

RESULTS = Path(__file__).parent / "results" / "socket_rpc.json"
REMINDERS = 10_000
ROUNDS, PER_ROUND, WARMUP = 10, 200, 50
CLIENTS, THROUGHPUT_S = 16, 3.0
PING_TARGET, OPEN_TARGET = 1.5, 10.0
FLOOR, PING, OPEN = "floor: asyncio echo", "fruitctl: system.ping", "fruitctl: reminders.open"
SAME_PAYLOAD = "floor: same payload as open"
REQUESTS = {
    FLOOR: {"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {}},
    SAME_PAYLOAD: {"jsonrpc": "2.0", "id": 1, "method": "payload", "params": {}},
    PING: {"jsonrpc": "2.0", "id": 1, "method": "system.ping"},
    OPEN: {"jsonrpc": "2.0", "id": 1, "method": "reminders.open", "params": {"limit": 200}},
}


# -- the floor server ----------------------------------------------------------------------------


class EchoProtocol(asyncio.Protocol):
    """Echoes ``params`` back as the result; with a ``payload`` file, answers that instead."""

    payload: Any = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        *lines, self.buffer = self.buffer.split(b"\n")
        for line in lines:
            message = json.loads(line)
            result = message.get("params") if self.payload is None else self.payload
            answer = {"jsonrpc": "2.0", "id": message.get("id"), "result": result}
            self.transport.write(json.dumps(answer, separators=(",", ":")).encode() + b"\n")


async def floor_server(path: str, payload_file: str | None) -> None:
    if payload_file:
        EchoProtocol.payload = json.loads(Path(payload_file).read_text())
    loop = asyncio.get_running_loop()
    server = await loop.create_unix_server(EchoProtocol, path)
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    async with server:
        await stop.wait()


# -- clients -------------------------------------------------------------------------------------


class Client:
    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.reader = self.sock.makefile("rb")

    def call(self, line: bytes) -> bytes:
        self.sock.sendall(line)
        return self.reader.readline()


def latencies(client: Client, line: bytes, count: int) -> list[float]:
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        answer = client.call(line)
        samples.append((time.perf_counter() - started) * 1000)
        assert b'"result"' in answer, answer[:200]
    return samples


def hammer(path: str, line: bytes, start_at: float, seconds: float, out: Any) -> None:
    client = Client(path)
    while time.time() < start_at:
        time.sleep(0.001)
    done, deadline = 0, start_at + seconds
    while time.time() < deadline:
        client.call(line)
        done += 1
    out.put(done)


def throughput(path: str, line: bytes) -> float:
    results: Any = multiprocessing.Queue()
    start_at = time.time() + 1.0  # every client connected and waiting
    workers = [
        multiprocessing.Process(target=hammer, args=(path, line, start_at, THROUGHPUT_S, results))
        for _ in range(CLIENTS)
    ]
    for worker in workers:
        worker.start()
    total = sum(results.get(timeout=60) for _ in workers)
    for worker in workers:
        worker.join()
    return total / THROUGHPUT_S


# -- the run -------------------------------------------------------------------------------------


def wait_for(path: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited with {proc.returncode}")
        try:
            Client(path).sock.close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("server did not start")


def seed(home: Path) -> None:
    from store_scale import SEED, seed_store

    from fruitctl.backends.local import LocalReminders
    from fruitctl.store import open_database

    engine = open_database(home / "local.db", "local")
    seed_store(LocalReminders(engine), REMINDERS, random.Random(SEED))
    engine.dispose()


def measure(paths: dict[str, str]) -> dict[str, dict[str, float]]:
    clients = {name: Client(path) for name, path in paths.items()}
    lines = {name: json.dumps(r).encode() + b"\n" for name, r in REQUESTS.items()}
    samples: dict[str, list[float]] = {name: [] for name in paths}
    for name in paths:
        latencies(clients[name], lines[name], WARMUP)
    for _ in range(ROUNDS):
        for name in paths:
            samples[name] += latencies(clients[name], lines[name], PER_ROUND)
    report = {}
    for name, values in samples.items():
        values.sort()
        report[name] = {
            "p50_ms": round(statistics.median(values), 4),
            "p99_ms": round(values[int(len(values) * 0.99) - 1], 4),
            "answer_bytes": len(clients[name].call(lines[name])),
            "throughput_16_clients_rps": round(throughput(paths[name], lines[name]), 1),
        }
    return report


def checks(report: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    floor = report[FLOOR]["p50_ms"]
    found = []
    for name, target in ((PING, PING_TARGET), (OPEN, OPEN_TARGET)):
        ratio = report[name]["p50_ms"] / floor
        found.append(
            {
                "name": f"{name} p50 / floor p50",
                "value": round(ratio, 2),
                "target": target,
                "passed": ratio <= target,
            }
        )
    return found


def main() -> int:
    home = Path(tempfile.mkdtemp(prefix="frb", dir="/tmp"))  # AF_UNIX paths are short
    env = {**os.environ, "FRUITCTL_HOME": str(home)}
    env.pop("FRUITCTL_SOCKET_PATH", None)
    os.environ.update(env)
    seed(home)
    floor_path, daemon_path = str(home / "floor.sock"), str(home / "run" / "fruitctl.sock")
    same_path, payload = str(home / "same.sock"), home / "payload.json"
    servers = [
        subprocess.Popen([sys.executable, __file__, "--floor", floor_path]),
        subprocess.Popen(
            [sys.executable, "-m", "fruitctl", "serve"], env=env, stderr=subprocess.DEVNULL
        ),
    ]
    try:
        wait_for(floor_path, servers[0])
        wait_for(daemon_path, servers[1])
        answer = Client(daemon_path).call(json.dumps(REQUESTS[OPEN]).encode() + b"\n")
        payload.write_text(json.dumps(json.loads(answer)["result"]))
        servers.append(
            subprocess.Popen([sys.executable, __file__, "--floor", same_path, str(payload)])
        )
        wait_for(same_path, servers[2])
        paths = {FLOOR: floor_path, SAME_PAYLOAD: same_path, PING: daemon_path, OPEN: daemon_path}
        report = measure(paths)
    finally:
        for proc in servers:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
        shutil.rmtree(home, ignore_errors=True)
    found = checks(report)
    show(report, found)
    return 0 if all(check["passed"] for check in found) else 1


def show(report: dict[str, dict[str, float]], found: list[dict[str, Any]]) -> None:
    print(f"{'':28}{'p50 ms':>10}{'p99 ms':>10}{'answer B':>10}{'16 clients req/s':>18}")
    for name, r in report.items():
        print(
            f"{name:28}{r['p50_ms']:10.3f}{r['p99_ms']:10.3f}{r['answer_bytes']:10d}"
            f"{r['throughput_16_clients_rps']:18.0f}"
        )
    print_checks(found)
    config = {
        "reminders": REMINDERS,
        "rounds": ROUNDS,
        "per_round": PER_ROUND,
        "clients": CLIENTS,
        "throughput_s": THROUGHPUT_S,
    }
    write_results(RESULTS, config, report, found)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--floor"]:
        asyncio.run(floor_server(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
        raise SystemExit(0)
    sys.path.insert(0, str(Path(__file__).parent))
    raise SystemExit(main())
