"""``fruitctl service install``: a systemd user unit (Linux) or a launchd agent (macOS).

Both run ``fruitctl serve`` in the foreground and let the service manager restart it with
throttling: systemd restarts on failure after 2 s, at most 5 times in 5 minutes, never for exits a
restart cannot fix (4: already running, 78: bad configuration); launchd restarts an unsuccessful
exit no more often than every 10 s. The file is written atomically; enabling it is left to the
person (the command to do so is printed), since it changes what runs at login.
"""

from __future__ import annotations

import os
import plistlib
import tempfile
from dataclasses import dataclass
from pathlib import Path

LABEL = "dev.fruitctl.gateway"
UNIT_NAME = "fruitctl.service"
PASSED_ENV = ("FRUITCTL_HOME", "FRUITCTL_SOCKET_PATH")


@dataclass(frozen=True)
class Unit:
    path: Path
    content: bytes
    enable_hint: str


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
    )


def launchd_agent(command: list[str], env: dict[str, str], home: Path, log_dir: Path) -> Unit:
    agent = {
        "Label": LABEL,
        "ProgramArguments": command,
        "EnvironmentVariables": env,
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},
        "ThrottleInterval": 10,
        "ProcessType": "Background",
        "StandardOutPath": str(log_dir / "server.log"),
        "StandardErrorPath": str(log_dir / "server.log"),
    }
    path = home / "Library" / "LaunchAgents" / f"{LABEL}.plist"
    return Unit(
        path,
        plistlib.dumps(agent),
        f'launchctl bootstrap gui/$(id -u) "{path}"',
    )


def passed_environment() -> dict[str, str]:
    """The variables that decide which files the daemon serves, as this shell has them."""
    return {name: os.environ[name] for name in PASSED_ENV if os.environ.get(name)}


def write(unit: Unit) -> Path:
    unit.path.parent.mkdir(parents=True, exist_ok=True)
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


def _systemd_quote(word: str) -> str:
    # systemd unquotes "…" with C escapes, and expands % specifiers and $ variables.
    escaped = word.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("%", "%%").replace("$", "$$") + '"'
