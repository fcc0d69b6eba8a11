"""The HTTP API's cost: ``GET /reminders`` (50 of 10k) vs a bare Starlette route, same transport.

Run with ``.venv/bin/python benchmarks/http_api.py`` (part of ``make bench``). Both servers are
uvicorn on 127.0.0.1 in this process, each on a thread of its own, and both are called over real
HTTP by one keep-alive ``httpx.Client`` - what a script or an agent pays. The floor is a bare
Starlette app returning the very same 50 reminders as pre-rendered JSON bytes: the price of
uvicorn, HTTP and the client, with nothing of fruitctl. The API side adds the bearer check, the
gateway (validation, policy, worker thread, telemetry), the store query and JSON rendering.
Requests alternate in rounds so the noise of this shared 2-core machine hits both alike. Prints
p50/p99 of each and the ratio of p50s (target: within 3x); writes
``benchmarks/results/http_api.json``.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

RESULTS = os.path.join(os.path.dirname(__file__), "results", "http_api.json")
REMINDERS = 10_000
ROUNDS, PER_ROUND, WARMUP = 40, 25, 50
TARGET_RATIO = 3.0


def main() -> int:
    with tempfile.TemporaryDirectory() as home:
        os.environ["FRUITCTL_HOME"] = home
        os.environ["FRUITCTL_HTTP__REQUESTS_PER_MINUTE"] = "100000"  # measure, not throttle
        from fruitctl import bootstrap

        app = bootstrap.build()
        try:
            seed(app)
            report = run(app)
        finally:
            app.close()
    print_report(report)
    write(report)
    return 0 if report["ratio_p50"] <= TARGET_RATIO else 1


def seed(app: Any) -> None:
    from fruitctl.ports import NewReminder

    default = app.backend.lists(with_counts=False)[0].id
    batch = [NewReminder(list_id=default, title=f"reminder {i}") for i in range(REMINDERS)]
    app.backend.create(batch)


def run(app: Any) -> dict[str, Any]:
    from fruitctl.transports.http.notify import Notifier
    from fruitctl.transports.http.server import HttpServer
    from fruitctl.transports.http.tokens import TokenStore, secrets_dir

    tokens = TokenStore(secrets_dir(app))
    token = tokens.issue("agent", 3600, "bench")[0]
    headers = {"Authorization": f"Bearer {token}"}
    silent = Notifier(which=lambda name: None)  # finds no notifier program
    api = HttpServer(app, "127.0.0.1", 0, tokens=tokens, notifier=silent)
    # Small writes go out at once (no Nagle): both sides pay only for the work, not for the
    # 40 ms of a delayed ACK, which would swamp the difference this measures.
    nodelay = httpx.HTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
    client = httpx.Client(headers=headers, timeout=30, transport=nodelay)
    with api.running() as api_url, client:
        body = client.get(f"{api_url}/reminders").content
        assert len(json.loads(body)) == 50
        with floor_server(body) as floor_url:
            samples = measure(client, f"{api_url}/reminders", f"{floor_url}/reminders")
    return summarize(samples, len(body))


@contextmanager
def floor_server(body: bytes) -> Iterator[str]:
    """A bare Starlette route answering ``body``: the least an HTTP answer of this size costs."""
    import asyncio
    import threading

    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    async def reminders(request: Request) -> Response:
        return Response(body, media_type="application/json")

    from fruitctl.transports.http.server import listen

    listener = listen("127.0.0.1", 0)  # the same socket options as the API's
    config = uvicorn.Config(
        Starlette(routes=[Route("/reminders", reminders)]),
        log_config=None,
        log_level="warning",
        access_log=False,
        lifespan="off",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=asyncio.run, args=(server.serve(sockets=[listener]),), daemon=True
    )
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)


def measure(client: httpx.Client, api: str, floor: str) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"api": [], "floor": []}
    for _ in range(WARMUP):
        client.get(api)
        client.get(floor)
    for _ in range(ROUNDS):
        for name, url in (("api", api), ("floor", floor)):
            for _ in range(PER_ROUND):
                started = time.perf_counter()
                response = client.get(url)
                samples[name].append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200
    return samples


def summarize(samples: dict[str, list[float]], size: int) -> dict[str, Any]:
    out: dict[str, Any] = {"response_bytes": size, "requests_each": len(samples["api"])}
    for name, values in samples.items():
        values.sort()
        out[f"{name}_p50_ms"] = round(statistics.median(values), 3)
        out[f"{name}_p99_ms"] = round(values[int(len(values) * 0.99) - 1], 3)
    out["ratio_p50"] = round(out["api_p50_ms"] / out["floor_p50_ms"], 2)
    return out


def print_report(r: dict[str, Any]) -> None:
    print(f"GET /reminders, 50 of {REMINDERS} ({r['response_bytes']} bytes), keep-alive HTTP")
    print(f"{'':24}{'p50 ms':>10}{'p99 ms':>10}")
    print(f"{'fruitctl API':24}{r['api_p50_ms']:10.3f}{r['api_p99_ms']:10.3f}")
    print(f"{'bare Starlette (floor)':24}{r['floor_p50_ms']:10.3f}{r['floor_p99_ms']:10.3f}")
    verdict = "PASS" if r["ratio_p50"] <= TARGET_RATIO else "FAIL"
    print(f"{verdict}  API p50 is {r['ratio_p50']}x the floor's (target <= {TARGET_RATIO}x)")


def write(report: dict[str, Any]) -> None:
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    machine = {
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
    }
    with open(RESULTS, "w") as handle:
        json.dump({"machine": machine, "results": report}, handle, indent=2)
    print(f"results written to {RESULTS}")


if __name__ == "__main__":
    raise SystemExit(main())
