"""``fruitctl server start|stop|status`` (the daemon in the background) and
``fruitctl service install|uninstall|status`` (a systemd user unit or a launchd agent)."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from fruitctl.cli.app import JsonOption, services
from fruitctl.cli.output import EXIT_CODES, emit_json, out, reporting
from fruitctl.cli.serve import Host, Port
from fruitctl.daemon import control, units
from fruitctl.daemon.lifecycle import RuntimeFiles
from fruitctl.startup import AlreadyRunning, StartupError

server_app = typer.Typer(help="Run the daemon in the background.", no_args_is_help=True)
service_app = typer.Typer(help="Let the system start the daemon at login.", no_args_is_help=True)
NOT_RUNNING = EXIT_CODES["not_found"]


class Platform(StrEnum):
    linux = "linux"
    macos = "macos"


def _files() -> tuple[RuntimeFiles, Path]:
    paths = services(daemon=False).config.paths
    return RuntimeFiles(paths.socket_file), paths.log_dir / "server.log"


@server_app.command("start")
def start_command(
    host: Host = None,
    port: Port = None,
    supervise: Annotated[
        bool, typer.Option("--supervise", help="Restart it when it crashes (backoff).")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Start the daemon in the background; returns once it answers."""
    files, log_file = _files()
    try:
        pid = control.start(files, log_file, supervise=supervise, host=host, port=port)
    except AlreadyRunning as exc:
        _say(
            as_json,
            {"started": False, "pid": exc.pid, "socketPath": str(files.socket)},
            f"Already running (pid {exc.pid}) on {files.socket}.",
        )
        return
    except StartupError as exc:
        with reporting(as_json):
            said = f"The daemon did not start: {exc}"
            raise StartupError(said, exit_code=exc.exit_code) from exc
    _say(
        as_json,
        {"started": True, "pid": pid, "socketPath": str(files.socket)},
        f"Started (pid {pid}) on {files.socket}; log: {log_file}",
    )


@server_app.command("stop")
def stop_command(
    timeout: Annotated[float, typer.Option(help="Seconds to wait for a clean stop.")] = 30.0,
    as_json: JsonOption = False,
) -> None:
    """Stop the daemon (it finishes in-flight requests first)."""
    files, _ = _files()
    pid = control.stop(files, timeout)
    text = f"Stopped (pid {pid})." if pid else "Not running."
    _say(as_json, {"stopped": pid is not None, "pid": pid}, text)


@server_app.command("status")
def status_command(as_json: JsonOption = False) -> None:
    """Whether the daemon runs and answers (exit 3 when it does not)."""
    files, _ = _files()
    found = control.status(files)
    if as_json:
        emit_json(found)
    elif found["running"]:
        info = found["info"]
        uptime = info.get("uptimeMs", 0) / 1000
        watched = (
            f" (its supervisor: pid {found['supervisorPid']})" if found["supervisorPid"] else ""
        )
        out.print(
            f"running: pid {found['pid']}{watched}, up {uptime:.0f} s, on {files.socket}",
            markup=False,
        )
    else:
        extra = f" (pid {found['pid']} does not answer)" if found["pid"] else ""
        out.print(f"not running{extra}; socket {files.socket}", markup=False)
    if not found["running"]:
        raise typer.Exit(NOT_RUNNING)


PlatformOption = Annotated[
    Platform | None, typer.Option(help="Which service manager (default: this system's).")
]


def _unit(platform: Platform | None) -> units.Unit:
    chosen = platform or (Platform.macos if sys.platform == "darwin" else Platform.linux)
    paths = services(daemon=False).config.paths
    command = control.serve_command()
    env = units.passed_environment()
    if chosen is Platform.macos:
        return units.launchd_agent(command, env, Path.home(), paths.log_dir)
    return units.systemd_unit(command, env, Path.home())


@service_app.command("install")
def install_command(platform: PlatformOption = None, as_json: JsonOption = False) -> None:
    """Write a systemd user unit (Linux) or a launchd agent (macOS) running `fruitctl serve`."""
    unit = _unit(platform)
    path = units.write(unit)
    _say(
        as_json,
        {"path": str(path), "enable": unit.enable_hint},
        f"Wrote {path}\nEnable it with: {unit.enable_hint}",
    )


@service_app.command("uninstall")
def uninstall_command(platform: PlatformOption = None, as_json: JsonOption = False) -> None:
    """Stop and disable the service through its manager, then remove its file."""
    done = units.remove(_unit(platform))
    if as_json:
        emit_json(done)
        return
    if not done["removed"]:
        out.print(f"Not installed ({done['path']}).", markup=False)
        return
    for ran in done["manager"]:
        verdict = "done" if ran["ok"] else f"did not work: {ran['output'] or 'no output'}"
        out.print(f"{' '.join(ran['command'])}: {verdict}", markup=False)
    out.print(f"Removed {done['path']}.", markup=False)


@service_app.command("status")
def service_status_command(platform: PlatformOption = None, as_json: JsonOption = False) -> None:
    """Whether the service file is installed and current, and whether the daemon answers
    (exit 3 when it is not installed)."""
    unit = _unit(platform)
    found = {**units.installed(unit), "daemon": control.status(_files()[0])}
    if as_json:
        emit_json(found)
    elif not found["installed"]:
        out.print(f"not installed ({found['path']}); install with: fruitctl service install")
    else:
        current = "" if found["upToDate"] else " - differs from now: run fruitctl service install"
        daemon = found["daemon"]
        running = f"running, pid {daemon['pid']}" if daemon["running"] else "not running"
        out.print(f"installed: {found['path']}{current}\ndaemon: {running}", markup=False)
    if not found["installed"]:
        raise typer.Exit(NOT_RUNNING)


def _say(as_json: bool, data: dict[str, Any], text: str) -> None:
    if as_json:
        emit_json(data)
    else:
        out.print(text, markup=False)
