"""``fruitctl ping`` and ``fruitctl info`` (seed 000): the daemon's health and runtime view; and
``fruitctl rpc``, one raw request to the daemon's socket.

With a daemon running they are ``system.ping`` / ``system.info`` over its socket; without one the
same answers come from this process, which then is the gateway.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from fruitctl.cli import drift, thin
from fruitctl.cli.app import JsonOption, client, only_here
from fruitctl.cli.output import out, reporting, run, tags_state


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
    code = thin.send_raw(message, _configured_socket)
    if code:
        raise typer.Exit(code)


def _configured_socket() -> Path:
    """The socket as the full configuration says, when the short reading cannot (``cli.thin``)."""
    from fruitctl import config as config_module

    return config_module.load().paths.socket_file
