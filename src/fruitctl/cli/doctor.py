"""``fruitctl doctor``: everything this installation can reach, and what to do where it cannot -
the backends and their permission (asking macOS once, here, only where the prompt can be seen
and answered), the app macOS asks about, tags, the daemon's socket and the HTTP API;
``--write-test`` makes a live round trip through Apple Reminders. Its output is what to paste
into a bug report.

When a daemon answers, it is asked too (``system.info``): it is the process agents and forwarded
commands use, and macOS grants access per app, so its permission is shown beside this
process's, any difference is said in words, and health is judged by the daemon's."""

from __future__ import annotations

import getpass
import platform
import sys
from typing import Annotated, Any

import typer

from fruitctl import __version__
from fruitctl.cli.app import JsonOption, services
from fruitctl.cli.output import emit_json, out, reporting, tags_state
from fruitctl.daemon.lifecycle import RuntimeFiles, answers, lock_holder
from fruitctl.domain.errors import FruitctlError
from fruitctl.policy.decision import Actor
from fruitctl.transports.rpc.client import DaemonClient, RpcClient

OK = "ok"
# The daemon answers system.info at once; a CalDAV backend's permission check inside it is
# bounded by its own connection timeouts, well under this.
DAEMON_INFO_TIMEOUT_S = 30.0


def doctor_command(
    write_test: Annotated[
        bool,
        typer.Option(
            "--write-test",
            help="Also create, read back and delete a reminder in a temporary list "
            "(Apple Reminders only).",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Check the backends, permissions, tags, socket and HTTP API; exit 1 if anything is wrong."""
    with reporting(as_json):
        app = services(as_json, daemon=False)
        daemon = _daemon(app.config.paths.socket_file)
        here = write_test and not daemon["answers"]  # else the daemon, which holds the access
        report: dict[str, Any] = {
            "fruitctl": __version__,
            "platform": _platform(),
            "config": {
                "file": str(app.config.paths.config_file),
                "exists": app.config.paths.config_file.exists(),
                "governance": str(app.config.paths.governance_file),
            },
            **app.doctor.report(write_test=here),
            "things": app.things.status(),
            "daemon": daemon,
            "http": _http(app),
        }
        if write_test and not here:
            report["writeTest"] = _daemon_write_test(RuntimeFiles(app.config.paths.socket_file))
        report["mismatches"] = app.doctor.against_daemon(report, report["daemon"].get("info") or {})
    healthy = _healthy(report)
    report["healthy"] = healthy
    if as_json:
        emit_json(report)
    else:
        _show(report)
    raise typer.Exit(0 if healthy else 1)


def _platform() -> str:
    mac = platform.mac_ver()[0]
    system = f"macOS {mac}" if mac else platform.platform(terse=True)
    return f"{system}, Python {sys.version.split()[0]}"


def _daemon(socket_file: Any) -> dict[str, Any]:
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


def _daemon_write_test(files: RuntimeFiles) -> dict[str, Any]:
    """The write test, run by the daemon (as the person, with its token): macOS grants access
    per app, and the daemon's is the one agents and forwarded commands use."""
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


def _daemon_info(socket: Any) -> dict[str, Any]:
    """What the daemon says of its backends and their access (``system.info``)."""
    client = RpcClient.connect(socket, timeout=DAEMON_INFO_TIMEOUT_S)
    if client is None:
        return {"answers": False}
    try:
        info = client.request("system.info")
    except FruitctlError as exc:
        return {"infoError": exc.to_dict()}
    finally:
        client.close()
    keys = ("backends", "permissions", "accessHolders")
    return {"info": {key: info[key] for key in keys if isinstance(info.get(key), dict)}}


def _http(app: Any) -> dict[str, Any]:
    import httpx  # only here: every other command skips its import

    settings = app.config.settings.http
    url = f"http://{settings.host}:{settings.port}"
    try:
        response = httpx.get(f"{url}/health", timeout=1.0)
        up = response.status_code == 200
    except httpx.HTTPError:
        up = False
    return {"url": url, "answers": up}


def _healthy(report: dict[str, Any]) -> bool:
    fine = all(_serves(report, service) for service in ("reminders", "calendar"))
    fine = fine and all(store["state"] != "broken" for store in report["stores"].values())
    test = report.get("writeTest")
    things_fine = report["things"]["state"] != "unreadable"  # "not set up" is no problem
    return fine and things_fine and (test is None or not test.get("ran") or bool(test.get("ok")))


def _serves(report: dict[str, Any], service: str) -> bool:
    """Whether the process that serves ``service`` can: the daemon when one answers (its own
    access decides, whatever this process's), else this process."""
    info = report["daemon"].get("info")
    if info is None:
        return bool(report[service].get("state") == OK)
    return bool((info.get("permissions") or {}).get(service) == "authorized")


def _show(report: dict[str, Any]) -> None:
    line = out.print
    line(f"fruitctl {report['fruitctl']} on {report['platform']}", markup=False)
    line(f"config      {report['config']['file']}", markup=False)
    for name, store in report["stores"].items():
        line(f"{name + '.db':<11} {store['file']}: {store['state']}", markup=False)
        if store.get("error"):
            line(f"            {store['error'].get('message')}", markup=False)
    for service in ("reminders", "calendar"):
        _show_service(service, report[service])
    test = report.get("writeTest")
    if test is not None:
        said = "passed" if test.get("ok") else test.get("reason") or "FAILED"
        where = " (run by the daemon)" if test.get("in") == "daemon" else ""
        steps = ", ".join(test.get("steps", []))
        line(f"write test  {said}{where}{': ' + steps if steps else ''}", markup=False)
        if test.get("error"):
            line(f"            {test['error'].get('message')}", markup=False)
    things = report["things"]
    if things["state"] == OK:
        said = f"{things['database']} ({things['todos']} to-dos); writes {things['writes']}"
    else:
        said = things["reason"]
    line(f"things      {said}", markup=False)
    daemon = report["daemon"]
    running = f"running (pid {daemon['pid']})" if daemon["running"] else "not running"
    line(f"daemon      {running}, socket {daemon['socket']}", markup=False)
    _show_daemon(daemon, report["mismatches"])
    http = report["http"]
    line(f"http        {http['url']} {'answers' if http['answers'] else 'not answering'}")
    line("all good" if report["healthy"] else "problems found: see above", markup=False)


def _show_service(name: str, found: dict[str, Any]) -> None:
    line = out.print
    state = found.get("state")
    line(
        f"{name:<11} {found['backend']}: {state}, access {found.get('permission', '?')}",
        markup=False,
    )
    holder = found.get("accessHolder")
    if holder:
        line(f"            macOS asks about: {holder}", markup=False)
    tags = found.get("tags")
    if isinstance(tags, dict):
        line(f"            tags and flags: {tags_state(tags)}", markup=False)
    error = found.get("error")
    if error:
        line(f"            {error.get('message')}", markup=False)
        for step in (error.get("details") or {}).get("instructions", []):
            line(f"            - {step}", markup=False)


def _show_daemon(daemon: dict[str, Any], mismatches: list[str]) -> None:
    line = out.print
    info = daemon.get("info") or {}
    permissions = info.get("permissions") or {}
    holders = info.get("accessHolders") or {}
    for service, permission in permissions.items():
        holder = f" (macOS asks about: {holders[service]})" if holders.get(service) else ""
        line(f"            its {service}: access {permission}{holder}", markup=False)
    if daemon.get("infoError"):
        line(f"            it did not say: {daemon['infoError'].get('message')}", markup=False)
    for said in mismatches:
        line(f"            ! {said}", markup=False)
