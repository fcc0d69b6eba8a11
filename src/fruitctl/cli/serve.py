"""``fruitctl serve``: the gateway in the foreground, on its Unix socket (JSON-RPC 2.0 and AAI)
and, in the same process, the HTTP API with the approval page (``[http]``, 127.0.0.1:8765 by
default; ``--port 0`` picks a free port). ``--supervise`` runs the daemon as a child and restarts
it after a crash (``daemon.supervisor``).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from fruitctl import __version__, telemetry
from fruitctl.cli.app import services
from fruitctl.cli.output import EXIT_CODES, err, reporting
from fruitctl.daemon import runner
from fruitctl.daemon.control import serve_command as child_command
from fruitctl.daemon.lifecycle import RuntimeFiles
from fruitctl.daemon.supervisor import Backoff, Supervisor
from fruitctl.startup import StartupError

ALREADY_RUNNING = EXIT_CODES["conflict"]
STUCK_GRACE_S = 2.0

Host = Annotated[
    str | None, typer.Option(help="HTTP API address ([http] host, 127.0.0.1 by default).")
]
Port = Annotated[
    int | None, typer.Option(help="HTTP API port ([http] port, 8765 by default; 0 picks one).")
]


def serve_command(
    host: Host = None,
    port: Port = None,
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
    socket_file = app.config.paths.socket_file
    agent_socket = Path(server.agent_socket).expanduser() if server.agent_socket else None
    options = runner.ServeOptions(
        RuntimeFiles(socket_file),
        request_timeout=server.request_timeout_seconds,
        max_bytes=server.max_message_bytes,
        agent_socket=agent_socket or socket_file.parent / "agents" / socket_file.name,
        agent_uids=frozenset(server.agent_uids),
        agent_limits=runner.agent_limits(
            server.agent_connections_per_uid, server.agent_idle_seconds
        ),
    )
    # Imported here, not at the top: every other command (and `fruitctl mcp`'s start-up)
    # would otherwise pay for FastAPI and uvicorn on each run.
    from fruitctl.transports.http.server import HttpServer

    web = HttpServer(app, host, port)
    try:
        banner = _announcer(web.warnings, options.agent_socket if options.agent_uids else None)
        code = runner.serve(
            gateway, app.status, options, banner, web, app.doctor.write_test, app.drift
        )
    except StartupError as exc:
        _error(exc)
        raise typer.Exit(exc.exit_code) from exc
    app.close()
    _exit_even_if_stuck(code)


def _supervise(host: str | None, port: int | None) -> int:
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

    command = [
        *child_command(),
        *(["--host", host] if host is not None else []),
        *(["--port", str(port)] if port is not None else []),
    ]
    try:
        return Supervisor(command, backoff, emit).run()
    finally:
        log.close()


def _announcer(
    warnings: list[str], agents: Path | None = None
) -> Callable[[str, str | None], None]:
    def announce(socket: str, http_url: str | None) -> None:
        ping = '{"jsonrpc":"2.0","id":1,"method":"system.ping"}'
        envelope = '{"version":"1.0","request_id":"r1","tool":"get_lists","params":{}}'
        web = (
            f"  HTTP API {http_url} · approval page {http_url}/ui "
            "(sign in with `fruitctl auth token --scope admin`)\n"
            if http_url
            else ""
        )
        sys.stderr.write(
            f"fruitctl {__version__} serving on unix:{socket} (pid {os.getpid()})\n"
            "  fruitctl ping | info | reminders open | calendar upcoming   (use the daemon)\n"
            f"  fruitctl rpc '{ping}'\n"
            f"  fruitctl rpc '{envelope}'   (any JSON-RPC request or AAI envelope)\n"
            f"{web}"
            + (
                f"  agents' socket {agents} (other users' agents; see agent_uids)\n"
                if agents
                else ""
            )
            + "".join(f"  warning: {line}\n" for line in warnings)
            + "Stop with Ctrl-C or `fruitctl server stop`.\n"
        )
        sys.stderr.flush()

    return announce


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
