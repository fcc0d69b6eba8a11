"""``fruitctl service install|uninstall|status``: a systemd user unit (Linux) or a launchd
agent (macOS; it runs fruitctl.app, whose launcher starts ``fruitctl serve`` as its child).

Both run ``fruitctl serve`` in the foreground and let the service manager restart it with
throttling: systemd restarts on failure after 2 s, at most 5 times in 5 minutes, never for exits a
restart cannot fix (4: already running, 78: bad configuration); launchd restarts an unsuccessful
exit no more often than every 10 s. The file is written atomically; enabling it is left to the
person (the command to do so is printed), since it changes what runs at login. Uninstalling asks
the service manager to stop and forget it (argument lists, never a shell line), then removes the
file.
"""

from __future__ import annotations

import os
import plistlib
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fruitctl.daemon.bundle import BUNDLE_ID, App
from fruitctl.private import make_dirs

LABEL = BUNDLE_ID
UNIT_NAME = "fruitctl.service"
PASSED_ENV = ("FRUITCTL_HOME", "FRUITCTL_SOCKET_PATH")


@dataclass(frozen=True)
class Unit:
    path: Path
    content: bytes
    enable_hint: str
    stop: tuple[tuple[str, ...], ...] = ()
    """What stops and disables it, before its file goes (each an argument list)."""
    after_removal: tuple[tuple[str, ...], ...] = ()


def systemd_unit(command: list[str], env: dict[str, str], home: Path) -> Unit:
    lines = [
        "[Unit]",
        "Description=fruitctl capability gateway (JSON-RPC on a Unix socket)",
        "StartLimitIntervalSec=300",
        "StartLimitBurst=5",
        "",
        "[Service]",
        "Type=simple",
        f"ExecStart={' '.join(_systemd_quote(word) for word in command)}",
        *(f"Environment={_systemd_quote(f'{k}={v}')}" for k, v in sorted(env.items())),
        "Restart=on-failure",
        "RestartSec=2",
        "RestartPreventExitStatus=4 78",
        "# SIGTERM drains in-flight requests, removes the socket and exits 0.",
        "TimeoutStopSec=60",
        "",
        "[Install]",
        "WantedBy=default.target",
        "",
    ]
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return Unit(
        config / "systemd" / "user" / UNIT_NAME,
        "\n".join(lines).encode(),
        f"systemctl --user daemon-reload && systemctl --user enable --now {UNIT_NAME}",
        stop=(("systemctl", "--user", "disable", "--now", UNIT_NAME),),
        after_removal=(("systemctl", "--user", "daemon-reload"),),
    )


def launchd_agent(app: App, env: dict[str, str], home: Path, log_dir: Path) -> Unit:
    """The agent runs fruitctl.app's launcher, never Python itself: launchd makes what it
    starts the process macOS asks about, and only an app can be asked (``daemon.bundle``)."""
    agent = {
        "Label": LABEL,
        "ProgramArguments": [str(app.executable)],
        "AssociatedBundleIdentifiers": [BUNDLE_ID],
        "EnvironmentVariables": env,
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},
        "ThrottleInterval": 10,
        # SIGTERM drains in-flight requests (the launcher hands it on); launchd's default 20 s
        # before SIGKILL is shorter than systemd's TimeoutStopSec above.
        "ExitTimeOut": 60,
        "ProcessType": "Background",
        "StandardOutPath": str(log_dir / "server.log"),
        "StandardErrorPath": str(log_dir / "server.log"),
    }
    path = home / "Library" / "LaunchAgents" / f"{LABEL}.plist"
    return Unit(
        path,
        plistlib.dumps(agent),
        f'launchctl bootstrap gui/$(id -u) "{path}"',
        stop=(("launchctl", "bootout", f"gui/{os.getuid()}/{LABEL}"),),
    )


def passed_environment() -> dict[str, str]:
    """The variables that decide which files the daemon serves, as this shell has them."""
    return {name: os.environ[name] for name in PASSED_ENV if os.environ.get(name)}


def write(unit: Unit) -> Path:
    make_dirs(unit.path.parent)
    fd, temporary = tempfile.mkstemp(prefix=".unit-", dir=unit.path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(unit.content)
        os.chmod(temporary, 0o644)  # service managers read it; it holds no secret
        os.replace(temporary, unit.path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return unit.path


def installed(unit: Unit) -> dict[str, Any]:
    """Whether the file is there, and whether it is what ``write`` would write now."""
    try:
        current = unit.path.read_bytes()
    except FileNotFoundError:
        return {"installed": False, "path": str(unit.path), "upToDate": False}
    return {"installed": True, "path": str(unit.path), "upToDate": current == unit.content}


def remove(unit: Unit) -> dict[str, Any]:
    """Stop and disable it through its service manager, then remove its file. What each
    manager command answered is reported; a manager that is not there (or says the unit was
    not loaded) does not keep the file."""
    ran = [_run(command) for command in unit.stop] if unit.path.exists() else []
    removed = unit.path.exists()
    unit.path.unlink(missing_ok=True)
    ran += [_run(command) for command in unit.after_removal] if removed else []
    return {"removed": removed, "path": str(unit.path), "manager": ran}


def _run(command: tuple[str, ...]) -> dict[str, Any]:
    found = shutil.which(command[0])
    if found is None:
        return {"command": list(command), "ok": False, "output": f"{command[0]} not found"}
    try:
        done = subprocess.run(
            [found, *command[1:]], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"command": list(command), "ok": False, "output": str(exc)}
    said = (done.stdout + done.stderr).strip()
    return {"command": list(command), "ok": done.returncode == 0, "output": said[-500:]}


def _systemd_quote(word: str) -> str:
    # systemd unquotes "…" with C escapes, and expands % specifiers and $ variables.
    escaped = word.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("%", "%%").replace("$", "$$") + '"'
