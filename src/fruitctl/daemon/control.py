"""``fruitctl server start|stop|status``: the daemon in the background, found by its pid file.

``start`` spawns ``fruitctl serve`` in a session of its own (output to ``logs/server.log``), writes
``<name>.pid`` and returns once the socket answers ``system.ping``, or reports why it did not.
``stop`` sends SIGTERM (the daemon drains and removes its socket) and waits; past the timeout it
kills. A pid is only signalled while it still runs fruitctl, so a reused pid is left alone.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from fruitctl.daemon.lifecycle import (
    RuntimeFiles,
    already_running,
    lock_holder,
    private_dir,
    read_pid,
)
from fruitctl.private import make_dirs, write_private
from fruitctl.startup import StartFailed
from fruitctl.transports.rpc.client import RpcClient

READY_TIMEOUT_S = 30.0
POLL_S = 0.05


def serve_command(
    supervise: bool = False, host: str | None = None, port: int | None = None
) -> list[str]:
    """``fruitctl serve`` as an argument list (never a shell line)."""
    command = [sys.executable, "-m", "fruitctl", "serve"]
    if host is not None:
        command += ["--host", host]
    if port is not None:
        command += ["--port", str(port)]
    return command + (["--supervise"] if supervise else [])


def start(
    files: RuntimeFiles,
    log_file: Path,
    *,
    supervise: bool = False,
    host: str | None = None,
    port: int | None = None,
) -> int:
    """Start a background daemon and return its pid once it answers."""
    running = server_pid(files)
    if running is not None:
        raise already_running(files.socket, running)
    private_dir(files.socket.parent)
    make_dirs(log_file.parent)
    command = serve_command(supervise, host, port)
    pid = os.posix_spawn(
        command[0],
        command,
        dict(os.environ),
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, str(log_file), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ],
        setsid=True,  # its own session: closing this terminal does not stop it
    )
    write_private(files.pid, f"{pid}\n")
    _wait_ready(files.socket, pid, log_file)
    return pid


def _wait_ready(socket_path: Path, pid: int, log_file: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            raise StartFailed(f"the daemon exited ({code}) while starting; see {log_file}")
        if ping(socket_path):
            return
        time.sleep(POLL_S)
    raise StartFailed(f"the daemon did not answer within {READY_TIMEOUT_S:g} s; see {log_file}")


def ping(socket_path: Path) -> bool:
    client = RpcClient.connect(socket_path, timeout=5)
    if client is None:
        return False
    try:
        return bool(client.request("system.ping").get("ok"))
    except Exception:  # anything but a healthy answer is "not ready"
        return False
    finally:
        client.close()


def stop(files: RuntimeFiles, timeout: float = 30.0) -> int | None:
    """Stop the daemon; its pid, or None when none ran."""
    import psutil  # here and below: only the commands that manage a daemon need it

    pid = server_pid(files)
    if pid is None:
        files.pid.unlink(missing_ok=True)
        return None
    with contextlib.suppress(psutil.NoSuchProcess):
        process = psutil.Process(pid)
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except psutil.TimeoutExpired:
            process.kill()
            process.wait(5)
    holder = lock_holder(files.lock)  # a supervised child orphaned by a kill
    if holder is not None and holder > 0 and _is_fruitctl(holder):
        with contextlib.suppress(psutil.NoSuchProcess):
            psutil.Process(holder).kill()
    files.pid.unlink(missing_ok=True)
    return pid


def server_pid(files: RuntimeFiles) -> int | None:
    """The running daemon's pid: the pid file's (``server start``) or the lock holder's."""
    for pid in (read_pid(files.pid), lock_holder(files.lock)):
        if pid is not None and pid > 0 and _is_fruitctl(pid):
            return pid
    return None


def status(files: RuntimeFiles) -> dict[str, Any]:
    pid = server_pid(files)
    info: dict[str, Any] | None = None
    client = RpcClient.connect(files.socket, timeout=10)
    if client is not None:
        try:
            info = client.request("system.info")
        except Exception:
            info = None
        finally:
            client.close()
    # Under --supervise the pid file names the supervisor; the daemon, its child, says so.
    return {
        "running": info is not None,
        "pid": info.get("pid", pid) if info else pid,
        "supervisorPid": info.get("supervisorPid") if info else None,
        "socketPath": str(files.socket),
        "info": info,
    }


def _is_fruitctl(pid: int) -> bool:
    import psutil

    try:
        words = psutil.Process(pid).cmdline()
    except (psutil.Error, OSError):
        return False
    return any("fruitctl" in word for word in words) and "serve" in words
