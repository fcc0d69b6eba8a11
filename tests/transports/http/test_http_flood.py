"""Strangers without a token against a real daemon (``fruitctl serve`` as its own process, under a
LaunchAgent's 256-descriptor limit): half-open HTTP connections are cut off, never take the
descriptors the Unix socket and the API need."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from socket_daemon import Daemon, Raw, answers, daemon_env, reap, short_home, wait_ready

pytestmark = pytest.mark.slow  # its one test takes two seconds or more

FD_LIMIT = 256  # what launchd gives a LaunchAgent unless it asks for more
FLOOD = 300
HEAD_SECONDS = 2  # the daemon's deadline for a request's head, here
CUT_OFF_S = 60.0  # the test's own deadline: far past the daemon's
SLOW_HEAD = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # and never the blank line


def _serve_limited(limit: int) -> list[str]:
    """``fruitctl serve`` in a process whose descriptor limit is ``limit`` (soft and hard)."""
    program = (
        "import resource, runpy, sys; "
        f"resource.setrlimit(resource.RLIMIT_NOFILE, ({limit}, {limit})); "
        "sys.argv = ['fruitctl', 'serve', '--port', '0']; "
        "runpy.run_module('fruitctl', run_name='__main__')"
    )
    return [sys.executable, "-c", program]


@contextlib.contextmanager
def limited_daemon(home: Path, limit: int, **env: str) -> Iterator[tuple[Daemon, Path]]:
    """A daemon under ``limit`` descriptors; its stderr goes to a file (a pipe nobody reads
    while the test runs could fill and stall it)."""
    log = home.parent / f"{home.name}.stderr"
    with log.open("wb") as errors:
        proc = subprocess.Popen(
            _serve_limited(limit),
            env=daemon_env(home, **env),
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
    daemon = Daemon(proc, home)
    try:
        wait_ready(daemon)
        yield daemon, log
    finally:
        reap(daemon)
        log.unlink(missing_ok=True)


def _http_url(daemon: Daemon) -> str:
    with Raw(daemon.socket) as client:
        url: str = client.result("system.info")["httpUrl"]
    return url


def _half_open(url: str, count: int) -> list[socket.socket]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    opened = []
    for _ in range(count):
        sock = socket.create_connection((host, int(port)), timeout=CUT_OFF_S)
        sock.sendall(SLOW_HEAD)
        opened.append(sock)
    return opened


def _cut_off(sock: socket.socket) -> bool:
    """Whether the daemon closed this connection (before the test's deadline)."""
    deadline = time.monotonic() + CUT_OFF_S
    try:
        while time.monotonic() < deadline:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            if not sock.recv(65536):
                return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return False


def test_half_open_connections_never_starve_the_socket_or_the_api() -> None:
    with (
        short_home() as home,
        limited_daemon(home, FD_LIMIT, FRUITCTL_HTTP__HEADER_TIMEOUT_SECONDS=str(HEAD_SECONDS)) as (
            daemon,
            log,
        ),
    ):
        url = _http_url(daemon)
        flood = _half_open(url, FLOOD)
        try:
            socket_answers = answers(daemon.socket)
            health = httpx.get(f"{url}/health", timeout=CUT_OFF_S)
            open_fds = len(os.listdir(f"/proc/{daemon.pid}/fd"))
            cut = [_cut_off(sock) for sock in flood]
        finally:
            for sock in flood:
                sock.close()
        after = httpx.get(f"{url}/health", timeout=CUT_OFF_S)
        errors = log.read_text(errors="replace")
    assert socket_answers, "the Unix socket stopped answering under the flood"
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert open_fds < FD_LIMIT - 32  # room left for the stores, the sockets, a notifier
    assert all(cut), f"{cut.count(False)} half-open connections were never closed"
    assert after.status_code == 200
    assert "out of system resource" not in errors and "Too many open files" not in errors
