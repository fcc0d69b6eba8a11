"""``fruitctl ping`` and ``fruitctl info`` (seed 000): the daemon's health and runtime view; and
``fruitctl rpc``, one raw request to the daemon's socket.

With a daemon running they are ``system.ping`` / ``system.info`` over its socket; without one the
same answers come from this process, which then is the gateway.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from fruitctl import config as config_module
from fruitctl.cli import drift
from fruitctl.cli.app import JsonOption, client, only_here
from fruitctl.cli.output import out, reporting, run, tags_state
from fruitctl.domain.errors import BackendUnavailable, InvalidParams
from fruitctl.transports.rpc.client import RpcClient


def ping_command(as_json: JsonOption = False) -> None:
    """Check that fruitctl answers (the daemon when one runs, or the gateway elsewhere)."""
    gateway = client(as_json)

    def show(result: dict[str, Any]) -> None:
        state = "ok" if result.get("ok") else "NOT OK"
        line = f"{state}: {result.get('service')} {result.get('version')} ({gateway.where})"
        out.print(line, markup=False)

    run(as_json, gateway.ping, show)


def info_command(as_json: JsonOption = False) -> None:
    """Version, uptime, socket, mode, backends and the permission of each service."""
    run(as_json, lambda: client(as_json).info(), _show_info)


def _show_info(info: dict[str, Any]) -> None:
    serving = f"daemon (pid {info.get('pid')})" if info.get("daemon") else "in-process, no daemon"
    rows = [
        ("service", f"{info.get('service')} {info.get('version')} - {serving}"),
        ("uptime", f"{info.get('uptimeMs', 0) / 1000:.1f} s"),
        ("socket", str(info.get("socketPath"))),
        ("http", str(info.get("httpUrl") or "not served")),
        ("mode", str(info.get("mode"))),
    ]
    if held := info.get("degraded"):
        said = f"set by fruitctl itself: {held['cause']}; returns to {held['previous']} once clear"
        rows.append(("degraded", said))
    rows += [(f"{k} backend", str(v)) for k, v in (info.get("backends") or {}).items()]
    unavailable = info.get("unavailable") or {}
    rows += [
        (f"{k} access", f"{v} ({unavailable[k]})" if k in unavailable else str(v))
        for k, v in (info.get("permissions") or {}).items()
    ]
    tags = info.get("tags")
    if isinstance(tags, dict):
        rows.append(("tags", tags_state(tags)))
    rows += _files_in_force(info)
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        out.print(f"{label.ljust(width)}  {value}", markup=False)
    for note in drift.notes(info):  # the daemon runs rules or settings its files no longer say
        out.print(f"! {note}", markup=False)


def _files_in_force(info: dict[str, Any]) -> list[tuple[str, str]]:
    """Where the rules and the configuration in force come from, and whether still current."""
    rows = []
    rules = info.get("governance") or {}
    if rules:
        said = rules.get("file") if rules.get("fromFile") else "the defaults"
        loaded = f", loaded {rules['loadedAt']}" if rules.get("loadedAt") else ""
        state = "NOT IN FORCE: see below" if rules.get("error") else "in force"
        rows.append(("governance", f"{said}{loaded} ({state})"))
    configuration = info.get("configuration") or {}
    if configuration:
        state = "as running" if configuration.get("current") else "CHANGED since start: see below"
        rows.append(("config", f"{configuration.get('file')} ({state})"))
    return rows


def rpc_command(
    message: Annotated[
        str,
        typer.Argument(
            help="One JSON-RPC 2.0 request (or a batch) or one AAI envelope, as JSON; '-' reads "
            "it from standard input.",
            show_default=False,
        ),
    ],
) -> None:
    """Send one raw request to the daemon's socket and print its answer, as the daemon sent it
    (no nc or socat needed). Exit 0 for an answer, 1 for an error answer, 9 when no daemon
    answers."""
    with reporting(as_json=False):
        only_here()
        text = sys.stdin.read() if message == "-" else message
        try:
            parsed = json.loads(text)
        except ValueError as exc:
            raise InvalidParams(f"The request is not JSON: {exc}.") from exc
        if not isinstance(parsed, dict | list):
            raise InvalidParams("The request must be a JSON object (or a batch: an array).")
        socket_file = config_module.load().paths.socket_file
        connection = RpcClient.connect(socket_file)
        if connection is None:
            raise BackendUnavailable(
                f"No fruitctl daemon answers on {socket_file}: start one with `fruitctl serve` "
                "(or `make run`)."
            )
        try:
            line = json.dumps(parsed, ensure_ascii=False, separators=(",", ":"))
            if not _expects_answer(parsed):  # notifications only: the daemon says nothing
                connection.send(line)
                return
            answer = connection.exchange(line)
        finally:
            connection.close()
    sys.stdout.write(answer.decode("utf-8", errors="replace") + "\n")
    if _is_error(answer):
        raise typer.Exit(1)


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
