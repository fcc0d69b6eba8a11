"""``fruitctl ping`` and ``fruitctl info`` (seed 000): the daemon's health and runtime view.

With a daemon running they are ``system.ping`` / ``system.info`` over its socket; without one the
same answers come from this process, which then is the gateway.
"""

from __future__ import annotations

import time
from typing import Any

from fruitctl.cli.app import JsonOption, services
from fruitctl.cli.output import out, run
from fruitctl.daemon.runner import service_info
from fruitctl.transports.rpc.methods import ping_result


def ping_command(as_json: JsonOption = False) -> None:
    """Check that fruitctl answers (the daemon when one runs)."""
    app = services(as_json)

    def ping() -> dict[str, Any]:
        return app.remote.rpc.request("system.ping") if app.remote else ping_result()

    def show(result: dict[str, Any]) -> None:
        where = f"daemon on {app.config.paths.socket_file}" if app.remote else "in-process"
        state = "ok" if result.get("ok") else "NOT OK"
        out.print(
            f"{state}: {result.get('service')} {result.get('version')} ({where})", markup=False
        )

    run(as_json, ping, show)


def info_command(as_json: JsonOption = False) -> None:
    """Version, uptime, socket, mode, backends and the permission of each service."""
    app = services(as_json)

    def info() -> dict[str, Any]:
        if app.remote:
            found: dict[str, Any] = app.remote.rpc.request("system.info")
            return found
        import psutil  # only an in-process answer needs this process's start time

        uptime = int((time.time() - psutil.Process().create_time()) * 1000)
        socket = app.config.paths.socket_file
        return service_info(app.status(), socket, None, uptime_ms=uptime, daemon=False)

    run(as_json, info, _show_info)


def _show_info(info: dict[str, Any]) -> None:
    serving = f"daemon (pid {info.get('pid')})" if info.get("daemon") else "in-process, no daemon"
    rows = [
        ("service", f"{info.get('service')} {info.get('version')} - {serving}"),
        ("uptime", f"{info.get('uptimeMs', 0) / 1000:.1f} s"),
        ("socket", str(info.get("socketPath"))),
        ("http", str(info.get("httpUrl") or "not served")),
        ("mode", str(info.get("mode"))),
    ]
    rows += [(f"{k} backend", str(v)) for k, v in (info.get("backends") or {}).items()]
    rows += [(f"{k} access", str(v)) for k, v in (info.get("permissions") or {}).items()]
    tags = info.get("tags")
    if isinstance(tags, dict):
        rows.append(
            ("tags", "readable" if tags.get("readable") else f"unavailable: {tags.get('reason')}")
        )
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        out.print(f"{label.ljust(width)}  {value}", markup=False)
