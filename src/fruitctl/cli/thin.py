"""The CLI's short way to a running daemon: find its socket and connect, before anything heavy.

A command that only forwards a request (``reminders list``, ``lists``, ``rpc`` …) needs no
store, no backends and no validated configuration when this machine's daemon answers: the
daemon has all of them. Finding the socket is what ``config.load`` does for it - the
environment, else ``[server] socket_path`` in ``config.toml``, else the default beside the run
folder - read here from the TOML alone. When only the full configuration can say where the
socket is (a server setting given in the environment, a file that does not read as TOML), this
says nothing, and the command takes the full path, which reports any error as before.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fruitctl.config_files import ConfigError, read_toml
from fruitctl.paths import SOCKET_ENV, Paths

if TYPE_CHECKING:
    from fruitctl.bootstrap import App
    from fruitctl.transports.rpc.client import DaemonClient

IN_PROCESS_ENV = "FRUITCTL_IN_PROCESS"
"""Set: every command runs the gateway in this process, even when a daemon answers."""
# pydantic-settings reads the [server] section from these too (a JSON table, or one key).
SERVER_ENV_PREFIX = "FRUITCTL_SERVER"


def socket_file(env: Mapping[str, str] = os.environ) -> Path | None:
    """The daemon's socket as ``config.load`` finds it, or None when only it can tell."""
    paths = Paths.resolve(env)
    if env.get(SOCKET_ENV):
        return paths.socket_file
    if any(name.upper().startswith(SERVER_ENV_PREFIX) for name in env):
        return None
    try:
        server = read_toml(paths.config_file).get("server", {})
    except ConfigError:
        return None
    setting = server.get("socket_path", "") if isinstance(server, dict) else None
    if not isinstance(setting, str):
        return None
    return Path(setting).expanduser() if setting else paths.socket_file


def daemon(env: Mapping[str, str] = os.environ) -> tuple[DaemonClient, Path] | None:
    """A connection to this machine's daemon and its socket, or None: when none answers, when
    ``FRUITCTL_IN_PROCESS`` asks for the gateway in this process, or when only the full
    configuration knows where the socket is."""
    if env.get(IN_PROCESS_ENV):
        return None
    found = socket_file(env)
    if found is None:
        return None
    from fruitctl.daemon.lifecycle import RuntimeFiles
    from fruitctl.transports.rpc.client import DaemonClient

    files = RuntimeFiles(found)
    connected = DaemonClient.connect(files.socket, files.token)
    return None if connected is None else (connected, found)


def gateway(env: Mapping[str, str] = os.environ) -> App:
    """This machine's gateway for a command: the composition root's app, built from the full
    configuration (whose errors are the caller's to report), its calls sent through the daemon
    on the configured socket when one answers there, else run in this process on the same
    files (always, with ``FRUITCTL_IN_PROCESS``). The caller closes it."""
    from fruitctl import bootstrap
    from fruitctl.daemon.lifecycle import RuntimeFiles
    from fruitctl.transports.rpc.client import DaemonClient

    built = bootstrap.build()
    if not env.get(IN_PROCESS_ENV):
        files = RuntimeFiles(built.config.paths.socket_file)
        remote = DaemonClient.connect(files.socket, files.token)
        if remote is not None:
            built.use_daemon(remote)
    return built


def send_raw(message: str, configured_socket: Callable[[], Path]) -> int:
    """``fruitctl rpc MESSAGE``: one raw request to the daemon's socket, its answer printed as the
    daemon sent it; the exit status: 0 for an answer, 1 for an error answer (a failure here ends
    the command with its own status, ``cli.output``). ``configured_socket`` finds the socket
    when the short reading cannot."""
    from fruitctl.cli.output import reporting
    from fruitctl.domain.errors import BackendUnavailable, InvalidParams
    from fruitctl.transports.rpc.client import RpcClient

    with reporting(as_json=False):
        text = sys.stdin.read() if message == "-" else message
        try:
            parsed = json.loads(text)
        except ValueError as exc:
            raise InvalidParams(f"The request is not JSON: {exc}.") from exc
        if not isinstance(parsed, dict | list):
            raise InvalidParams("The request must be a JSON object (or a batch: an array).")
        socket = socket_file() or configured_socket()
        connection = RpcClient.connect(socket)
        if connection is None:
            raise BackendUnavailable(
                f"No fruitctl daemon answers on {socket}: start one with `fruitctl serve` "
                "(or `make run`)."
            )
        try:
            line = json.dumps(parsed, ensure_ascii=False, separators=(",", ":"))
            if not _expects_answer(parsed):  # notifications only: the daemon says nothing
                connection.send(line)
                return 0
            answer = connection.exchange(line)
        finally:
            connection.close()
    sys.stdout.write(answer.decode("utf-8", errors="replace") + "\n")
    return 1 if _is_error(answer) else 0


def _expects_answer(message: Any) -> bool:
    """JSON-RPC answers every request with an id (an AAI envelope always); not notifications."""
    items = message if isinstance(message, list) else [message]
    return any(not isinstance(m, dict) or "id" in m or "jsonrpc" not in m for m in items)


def _is_error(answer: bytes) -> bool:
    try:
        parsed = json.loads(answer)
    except ValueError:
        return True
    items = parsed if isinstance(parsed, list) else [parsed]
    return any(
        isinstance(item, dict) and ("error" in item or item.get("status") == "error")
        for item in items
    )
