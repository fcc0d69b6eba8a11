"""Real ``fruitctl serve`` subprocesses for tests, and a raw line client for their socket.

Homes live in short directories under /tmp: a socket path must fit AF_UNIX's 108 bytes, and
pytest's tmp_path can be longer. Every daemon started here is stopped (SIGTERM, then SIGKILL) when
its ``running`` block ends, and so is any child it supervised.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

import fruitctl

SERVE = [sys.executable, "-m", "fruitctl", "serve", "--port", "0"]  # any free HTTP port
FRUITCTL = [sys.executable, "-m", "fruitctl"]
TESTS_DIR = Path(__file__).parent
SOURCE_DIR = Path(fruitctl.__file__).parents[1]
READY_S = 60.0  # a healthy start takes about a second; a loaded machine, more
STOP_S = 30.0


@contextlib.contextmanager
def short_home() -> Iterator[Path]:
    home = Path(tempfile.mkdtemp(prefix="frt", dir="/tmp"))
    try:
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


def daemon_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRUITCTL_")}
    # The fruitctl this test imported, not only the installed one: a git worktree's tests start
    # that worktree's daemons.
    path = os.pathsep.join([str(TESTS_DIR), str(SOURCE_DIR)])
    env.update(FRUITCTL_HOME=str(home), PYTHONPATH=path, TZ="Europe/Rome")
    env.update(extra)
    return env


def seed_demo(home: Path) -> None:
    """The demo's sample data in ``home``, written in this process (no CLI start-up to pay)."""
    from fruitctl import bootstrap
    from fruitctl.config import Config, Settings
    from fruitctl.paths import Paths

    app = bootstrap.build(Config(Settings(), Paths.resolve({"FRUITCTL_HOME": str(home)})))
    try:
        app.demo.seed()
    finally:
        app.close()


def socket_of(home: Path) -> Path:
    return home / "run" / "fruitctl.sock"


@dataclass
class Daemon:
    proc: subprocess.Popen[bytes]
    home: Path

    @property
    def socket(self) -> Path:
        return socket_of(self.home)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self, signum: int = signal.SIGTERM) -> int:
        self.proc.send_signal(signum)
        return self.proc.wait(STOP_S)

    def stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode(errors="replace")


def spawn(home: Path, *args: str, umask: int | None = None, **env: str) -> Daemon:
    def preexec() -> None:
        if umask is not None:
            os.umask(umask)

    proc = subprocess.Popen(
        [*SERVE, *args],
        env=daemon_env(home, **env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=preexec if umask is not None else None,
    )
    return Daemon(proc, home)


def wait_ready(daemon: Daemon) -> None:
    deadline = time.monotonic() + READY_S
    while time.monotonic() < deadline:
        if daemon.proc.poll() is not None:
            raise AssertionError(f"daemon exited {daemon.proc.returncode}: {daemon.stderr()}")
        if answers(daemon.socket):
            return
        time.sleep(0.05)
    raise AssertionError("daemon did not answer system.ping")


def answers(path: Path) -> bool:
    try:
        with Raw(path, timeout=5) as client:
            return client.request("system.ping").get("result", {}).get("ok") is True
    except OSError:
        return False


@contextlib.contextmanager
def spawned(home: Path, *args: str, umask: int | None = None, **env: str) -> Iterator[Daemon]:
    """A daemon started (not waited for), reaped when the block ends."""
    daemon = spawn(home, *args, umask=umask, **env)
    try:
        yield daemon
    finally:
        reap(daemon)


@contextlib.contextmanager
def running(home: Path, *args: str, umask: int | None = None, **env: str) -> Iterator[Daemon]:
    """A daemon that answers system.ping, reaped when the block ends."""
    with spawned(home, *args, umask=umask, **env) as daemon:
        wait_ready(daemon)
        yield daemon


@contextlib.contextmanager
def demo_daemon() -> Iterator[Daemon]:
    """A daemon on a fresh home holding the demo's sample data, reaped when the block ends."""
    with short_home() as home:
        seed_demo(home)
        with running(home) as served:
            yield served


def person_token(daemon: Daemon) -> str:
    """The token only the daemon's user can read: with it, a session is the person's."""
    return (daemon.socket.parent / "fruitctl.token").read_text().strip()


def reap(daemon: Daemon) -> None:
    """Stop the daemon and anything it started, by pid."""
    children = []
    with contextlib.suppress(psutil.Error):
        children = psutil.Process(daemon.pid).children(recursive=True)
    if daemon.proc.poll() is None:
        daemon.proc.send_signal(signal.SIGTERM)
        try:
            daemon.proc.wait(STOP_S)
        except subprocess.TimeoutExpired:
            daemon.proc.kill()
            daemon.proc.wait(STOP_S)
    for child in children:
        with contextlib.suppress(psutil.Error):
            child.kill()
            child.wait(STOP_S)
    if daemon.proc.stderr is not None:
        daemon.proc.stderr.close()


def cli(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``fruitctl …`` as a separate process, as a person or an agent runs it."""
    return subprocess.run(
        [*FRUITCTL, *args],
        env=daemon_env(home, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def python(home: Path, script: str) -> subprocess.CompletedProcess[str]:
    """``python -c script`` as a separate process on ``home``, importing this test's fruitctl."""
    return subprocess.run(
        [sys.executable, "-c", script],
        env=daemon_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )


def cli_here(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``fruitctl …`` run in this process, in the environment :func:`cli` gives a separate one:
    for a CLI whose answer is under test, not its process (a start-up costs about a second)."""
    from typer.testing import CliRunner

    from fruitctl.cli.app import app

    given = daemon_env(home, **env)
    unset = {k: None for k in os.environ if k.startswith("FRUITCTL_") and k not in given}
    done = CliRunner().invoke(app, list(args), env={**given, **unset})
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception  # a separate process would end in a traceback: never one here
    return subprocess.CompletedProcess(list(args), done.exit_code, done.stdout, done.stderr)


class Raw:
    """A plain socket speaking lines: what ``nc -U`` or any other client sends."""

    def __init__(self, path: Path, timeout: float = 30.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(str(path))
        except OSError:
            self.sock.close()
            raise
        self.reader = self.sock.makefile("rb")

    def __enter__(self) -> Raw:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.reader.close()
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def line(self) -> bytes:
        """The next line, or b"" once the daemon has closed the connection."""
        return self.reader.readline()

    def answer(self) -> Any:
        line = self.line()
        assert line.endswith(b"\n"), line
        return json.loads(line)

    def call(self, message: Any) -> Any:
        self.send(json.dumps(message).encode() + b"\n")
        return self.answer()

    def request(self, method: str, params: Any = None, request_id: Any = 1) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        return self.call(message)

    def result(self, method: str, params: Any = None) -> Any:
        answer = self.request(method, params)
        assert "result" in answer, answer
        return answer["result"]

    def error(self, method: str, params: Any = None) -> dict[str, Any]:
        answer = self.request(method, params)
        assert "error" in answer, answer
        error: dict[str, Any] = answer["error"]
        return error

    def rest(self) -> bytes:
        """Everything until the daemon closes (after a half-close of ours)."""
        chunks = []
        while chunk := self.reader.read(65536):
            chunks.append(chunk)
        return b"".join(chunks)
