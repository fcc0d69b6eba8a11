"""What ``fruitctl doctor`` asks of this home's daemon: whether it runs and answers, what it
says of itself (``system.info``: its backends and their access, the HTTP address it really
serves, whether its rules and configuration are what the files say now), its HTTP server,
reached at that address (never a default port: a daemon started with ``--port 0``, or another
home's daemon on 8765, would make a default answer for the wrong server), and the write test
run where the access is held."""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import Any

from fruitctl.daemon.lifecycle import RuntimeFiles, answers, lock_holder
from fruitctl.domain.actors import Actor
from fruitctl.domain.errors import FruitctlError
from fruitctl.transports.rpc.client import DaemonClient, RpcClient

# The daemon answers system.info at once; a CalDAV backend's permission check inside it is
# bounded by its own connection timeouts, well under this.
DAEMON_INFO_TIMEOUT_S = 30.0
# /health answers without touching a store: a second is plenty on loopback, and a server that
# takes longer is not one an approval page can be opened on.
HTTP_HEALTH_TIMEOUT_S = 2.0
INFO_KEYS = (
    "backends",
    "permissions",
    "accessHolders",
    "unavailable",
    "httpUrl",
    "governance",
    "configuration",
)


def daemon(socket_file: Path) -> dict[str, Any]:
    files = RuntimeFiles(socket_file)
    pid = lock_holder(files.lock)
    found: dict[str, Any] = {
        "socket": str(files.socket),
        "running": pid is not None,
        "pid": pid if pid and pid > 0 else None,
        "answers": answers(files.socket) if files.socket.exists() else False,
    }
    if found["answers"]:
        found.update(_daemon_info(files.socket))
    return found


def _daemon_info(socket: Path) -> dict[str, Any]:
    """What the daemon says of itself (``system.info``)."""
    client = RpcClient.connect(socket, timeout=DAEMON_INFO_TIMEOUT_S)
    if client is None:
        return {"answers": False}
    try:
        info = client.request("system.info")
    except FruitctlError as exc:
        return {"infoError": exc.to_dict()}
    finally:
        client.close()
    return {"info": {key: info[key] for key in INFO_KEYS if key in info}}


def http(found: dict[str, Any]) -> dict[str, Any]:
    """This home's daemon's HTTP server, at the address it says it serves (``httpUrl``)."""
    if not found.get("answers"):
        return {"url": None, "answers": False, "expected": False, "why": "no daemon runs"}
    url = (found.get("info") or {}).get("httpUrl")
    if not url:
        return {"url": None, "answers": False, "expected": False, "why": "the daemon serves none"}
    import httpx  # only here: every other command skips its import

    try:
        response = httpx.get(f"{url}/health", timeout=HTTP_HEALTH_TIMEOUT_S)
    except httpx.HTTPError as exc:
        return {"url": url, "answers": False, "expected": True, "why": type(exc).__name__}
    up = response.status_code == 200
    why = None if up else f"/health answered HTTP {response.status_code}"
    return {"url": url, "answers": up, "expected": True, "why": why}


def write_test(socket_file: Path) -> dict[str, Any]:
    """The write test, run by the daemon (as the person, with its token): macOS grants access
    per app, and the daemon's is the one agents and forwarded commands use."""
    files = RuntimeFiles(socket_file)
    client = DaemonClient.connect(files.socket, files.token)
    if client is None:
        return {"ran": False, "reason": "the daemon stopped answering", "in": "daemon"}
    try:
        client.identify(Actor("human", getpass.getuser() or "person"))
        found = client.rpc.request("system.writeTest")
    except FruitctlError as exc:
        return {"ran": True, "ok": False, "steps": [], "error": exc.to_dict(), "in": "daemon"}
    finally:
        client.close()
    return {**found, "in": "daemon"}
