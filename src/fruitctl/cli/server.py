"""``fruitctl server start|stop|status`` (the daemon in the background) and
``fruitctl service install`` (a systemd user unit or a launchd agent)."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from fruitctl.cli.app import JsonOption, services
from fruitctl.cli.output import EXIT_CODES, emit_json, out, reporting
from fruitctl.daemon import control, units
from fruitctl.daemon.lifecycle import AlreadyRunning, RuntimeFiles, UnsafeLocation
from fruitctl.domain.errors import ExecutionFailed

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
    supervise: Annotated[
        bool, typer.Option("--supervise", help="Restart it when it crashes (backoff).")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Start the daemon in the background; returns once it answers."""
    files, log_file = _files()
    try:
        pid = control.start(files, log_file, supervise=supervise)
    except AlreadyRunning as exc:
        _say(
            as_json,
            {"started": False, "pid": exc.pid, "socketPath": str(files.socket)},
            f"Already running (pid {exc.pid}) on {files.socket}.",
        )
        return
    except (control.StartFailed, UnsafeLocation) as exc:
        with reporting(as_json):
            raise ExecutionFailed(f"The daemon did not start: {exc}") from None
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
        out.print(
            f"running: pid {found['pid']}, up {uptime:.0f} s, on {files.socket}", markup=False
        )
    else:
        extra = f" (pid {found['pid']} does not answer)" if found["pid"] else ""
        out.print(f"not running{extra}; socket {files.socket}", markup=False)
    if not found["running"]:
        raise typer.Exit(NOT_RUNNING)


@service_app.command("install")
def install_command(
    platform: Annotated[
        Platform | None, typer.Option(help="Which service manager (default: this system's).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Write a systemd user unit (Linux) or a launchd agent (macOS) running `fruitctl serve`."""
    chosen = platform or (Platform.macos if sys.platform == "darwin" else Platform.linux)
    paths = services(daemon=False).config.paths
    command = control.serve_command()
    env = units.passed_environment()
    home = Path.home()
    if chosen is Platform.macos:
        unit = units.launchd_agent(command, env, home, paths.log_dir)
    else:
        unit = units.systemd_unit(command, env, home)
    path = units.write(unit)
    _say(
        as_json,
        {"path": str(path), "enable": unit.enable_hint},
        f"Wrote {path}\nEnable it with: {unit.enable_hint}",
    )


def _say(as_json: bool, data: dict[str, Any], text: str) -> None:
    if as_json:
        emit_json(data)
    else:
        out.print(text, markup=False)
