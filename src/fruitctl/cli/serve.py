"""``fruitctl serve``: the gateway in the foreground, on its Unix socket (JSON-RPC 2.0 and AAI).

``--host``/``--port`` are accepted now for the HTTP API, which is not built yet: nothing listens on
them, and the banner says so. ``--supervise`` runs the daemon as a child and restarts it after a
crash (``daemon.supervisor``).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Annotated, Any

import typer

from fruitctl import __version__, telemetry
from fruitctl.cli.app import services
from fruitctl.cli.output import CONFIG_ERROR, EXIT_CODES, err, reporting
from fruitctl.daemon import runner
from fruitctl.daemon.control import serve_command as child_command
from fruitctl.daemon.lifecycle import AlreadyRunning, RuntimeFiles, UnsafeLocation
from fruitctl.daemon.supervisor import Backoff, Supervisor

ALREADY_RUNNING = EXIT_CODES["conflict"]
HOST = "127.0.0.1"
PORT = 8765
STUCK_GRACE_S = 2.0

Host = Annotated[str, typer.Option(help="HTTP API address (reserved: not served yet).")]
Port = Annotated[int, typer.Option(help="HTTP API port (reserved: not served yet).")]


def serve_command(
    host: Host = HOST,
    port: Port = PORT,
    supervise: Annotated[
        bool, typer.Option("--supervise", help="Restart the daemon when it crashes (backoff).")
    ] = False,
) -> None:
    """Run the gateway in the foreground on its Unix socket until SIGTERM or Ctrl-C."""
    if supervise:
        raise typer.Exit(_supervise(host, port))
    app = services(False, daemon=False)
    with reporting(False):
        gateway = app.gateway  # built now: a bad governance file fails before the socket exists
        app.backend, app.calendar_backend  # noqa: B018 - open the stores before the first call
    server = app.config.settings.server
    options = runner.ServeOptions(
        RuntimeFiles(app.config.paths.socket_file),
        request_timeout=server.request_timeout_seconds,
        max_bytes=server.max_message_bytes,
    )
    try:
        code = runner.serve(gateway, app.status, options, _announce)
    except AlreadyRunning as exc:
        _error(exc)
        raise typer.Exit(ALREADY_RUNNING) from None
    except UnsafeLocation as exc:
        _error(exc)
        raise typer.Exit(CONFIG_ERROR) from None
    app.close()
    _exit_even_if_stuck(code)


def _supervise(host: str, port: int) -> int:
    app = services(False, daemon=False)
    settings = app.config.settings.server
    backoff = Backoff(
        base=settings.restart_base_seconds,
        cap=settings.restart_max_seconds,
        reset_after=settings.restart_reset_seconds,
    )
    log = telemetry.configure_logging(app.config.paths.log_dir)
    levels = {"daemon_crashed": log.error, "daemon_restarting": log.warning}

    def emit(event: str, **fields: Any) -> None:
        # The log file for the record, stderr for whoever watches (server.log, a terminal).
        levels.get(event, log.info)(event, supervisor_pid=os.getpid(), **fields)
        log.flush()
        sys.stderr.write(json.dumps({"event": event, **fields}) + "\n")
        sys.stderr.flush()

    command = [*child_command(), "--host", host, "--port", str(port)]
    try:
        return Supervisor(command, backoff, emit).run()
    finally:
        log.close()


def _announce(socket: str) -> None:
    ping = '{"jsonrpc":"2.0","id":1,"method":"system.ping"}'
    sys.stderr.write(
        f"fruitctl {__version__} serving on unix:{socket} (pid {os.getpid()})\n"
        "  fruitctl ping | info | reminders open | calendar upcoming   (use the daemon by itself)\n"
        f"  echo '{ping}' | nc -U -q1 {socket}\n"
        f"  socat - UNIX-CONNECT:{socket}   (one JSON-RPC request or AAI envelope per line)\n"
        "  HTTP API: not served yet (--host/--port are reserved for it)\n"
        "Stop with Ctrl-C or `fruitctl server stop`.\n"
    )
    sys.stderr.flush()


def _error(exc: Exception) -> None:
    err.print("[bold red]error:[/] " + str(exc).replace("[", "\\["))


def _exit_even_if_stuck(code: int) -> None:
    # A tool stuck past its timeout keeps a worker thread busy, and the interpreter joins worker
    # threads at exit: leave without waiting for it once everything is written and closed.
    deadline = time.monotonic() + STUCK_GRACE_S
    for thread in threading.enumerate():
        if not thread.daemon and thread is not threading.main_thread():
            thread.join(max(0.0, deadline - time.monotonic()))
    main = threading.main_thread()
    if any(t.is_alive() and not t.daemon and t is not main for t in threading.enumerate()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise typer.Exit(code)
