"""``fruitctl server start|stop|status`` (the daemon in the background) and
``fruitctl service install|uninstall|status`` (a systemd user unit, or on macOS fruitctl.app and
the launchd agent that runs it)."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from fruitctl.cli import drift
from fruitctl.cli.app import JsonOption, services
from fruitctl.cli.output import EXIT_CODES, emit_json, out, reporting
from fruitctl.cli.serve import Host, Port
from fruitctl.daemon import bundle, control, units
from fruitctl.daemon.bundle import App
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
        for note in drift.notes(info):  # it runs rules or settings its files no longer say
            out.print(f"! {note}", markup=False)
    else:
        extra = f" (pid {found['pid']} does not answer)" if found["pid"] else ""
        out.print(f"not running{extra}; socket {files.socket}", markup=False)
    if not found["running"]:
        raise typer.Exit(NOT_RUNNING)


PlatformOption = Annotated[
    Platform | None, typer.Option(help="Which service manager (default: this system's).")
]
AppFolderOption = Annotated[
    Path | None,
    typer.Option(
        "--app-folder", help="Where fruitctl.app goes on macOS (default: ~/Applications)."
    ),
]


def _unit(platform: Platform | None, app_folder: Path | None) -> tuple[units.Unit, App | None]:
    """The service file, and on macOS the app it runs (None for systemd)."""
    chosen = platform or (Platform.macos if sys.platform == "darwin" else Platform.linux)
    paths = services(daemon=False).config.paths
    command = control.serve_command()
    env = units.passed_environment()
    if chosen is Platform.macos:
        # launchd runs what the agent names from /: a folder given relative is made absolute.
        folder = (app_folder or Path.home() / "Applications").expanduser().absolute()
        app = bundle.app_in(folder, command)
        return units.launchd_agent(app, env, Path.home(), paths.log_dir), app
    return units.systemd_unit(command, env, Path.home()), None


@service_app.command("install")
def install_command(
    platform: PlatformOption = None,
    app_folder: AppFolderOption = None,
    rebuild: Annotated[
        bool,
        typer.Option("--rebuild", help="Build fruitctl.app again even when it is up to date."),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Write a systemd user unit (Linux), or build fruitctl.app and write a launchd agent
    running it (macOS), to run `fruitctl serve` at login."""
    unit, app = _unit(platform, app_folder)
    with reporting(as_json):
        built = bundle.build(app, rebuild=rebuild) if app else None
    path = units.write(unit)
    done: dict[str, Any] = {"path": str(path), "enable": unit.enable_hint}
    lines = [f"Wrote {path}", f"Enable it with: {unit.enable_hint}"]
    if app and built:
        done |= {"app": built, "notes": bundle.grant_notes(app)}
        lines = [_built_line(built), *lines, *done["notes"]]
        lines += [RESTART_HINT] if built["built"] else []
    _say(as_json, done, "\n".join(lines))


RESTART_HINT = (
    "If the daemon already runs, restart it on the new app: "
    f"launchctl kickstart -k gui/$(id -u)/{units.LABEL}"
)


def _built_line(built: dict[str, Any]) -> str:
    if not built["built"]:
        return f"Kept {built['path']} (up to date)."
    signed = "signed ad hoc" if built["signed"] else "not signed: codesign runs only on macOS"
    return f"Built {built['path']} ({signed})."


@service_app.command("uninstall")
def uninstall_command(
    platform: PlatformOption = None, app_folder: AppFolderOption = None, as_json: JsonOption = False
) -> None:
    """Stop and disable the service through its manager, then remove its file (and
    fruitctl.app on macOS)."""
    unit, app = _unit(platform, app_folder)
    done = units.remove(unit)
    if app:
        done["app"] = bundle.remove(app)
    if as_json:
        emit_json(done)
        return
    for ran in done["manager"]:
        verdict = "done" if ran["ok"] else f"did not work: {ran['output'] or 'no output'}"
        out.print(f"{' '.join(ran['command'])}: {verdict}", markup=False)
    removed = f"Removed {done['path']}." if done["removed"] else f"Not installed ({done['path']})."
    out.print(removed, markup=False)
    if app:
        _say_app_removed(done["app"])


def _say_app_removed(removed: dict[str, Any]) -> None:
    if removed["removed"]:
        text = (
            f"Removed {removed['path']}. macOS keeps what you allowed it; to forget that too: "
            f"tccutil reset All {bundle.BUNDLE_ID}"
        )
    else:
        text = f"{removed['path']}: {removed['reason']}."
    out.print(text, markup=False)


@service_app.command("status")
def service_status_command(
    platform: PlatformOption = None, app_folder: AppFolderOption = None, as_json: JsonOption = False
) -> None:
    """Whether the service file is installed and current, whether fruitctl.app is (macOS), and
    whether the daemon answers (exit 3 when the service is not installed)."""
    unit, app = _unit(platform, app_folder)
    found = {**units.installed(unit), "daemon": control.status(_files()[0])}
    if app:
        found["app"] = bundle.state(app)
    if as_json:
        emit_json(found)
    elif not found["installed"]:
        out.print(f"not installed ({found['path']}); install with: fruitctl service install")
    else:
        current = "" if found["upToDate"] else " - differs from now: run fruitctl service install"
        daemon = found["daemon"]
        running = f"running, pid {daemon['pid']}" if daemon["running"] else "not running"
        out.print(f"installed: {found['path']}{current}\ndaemon: {running}", markup=False)
    if app and not as_json:
        out.print(_app_line(found["app"]), markup=False)
    if not found["installed"]:
        raise typer.Exit(NOT_RUNNING)


def _app_line(app: dict[str, Any]) -> str:
    if not app["present"]:
        return f"app: {app['path']} is missing - run fruitctl service install"
    if app["signatureValid"] is False:
        return f"app: {app['path']} - its signature does not hold: run fruitctl service install"
    if not app["upToDate"]:
        return (
            f"app: {app['path']} - built for another Python or an older launcher: run fruitctl "
            "service install (macOS may ask again)"
        )
    return f"app: {app['path']} (up to date)"


def _say(as_json: bool, data: dict[str, Any], text: str) -> None:
    if as_json:
        emit_json(data)
    else:
        out.print(text, markup=False)
