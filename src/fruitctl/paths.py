"""Where fruitctl's files live: with ``FRUITCTL_HOME`` set, everything is inside it
(``config.toml``, ``governance.yaml``, ``state.db``, ``local.db``, ``run/``, ``logs/``);
otherwise the platform's conventional config, data, runtime and log directories."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP = "fruitctl"
SOCKET_ENV = "FRUITCTL_SOCKET_PATH"


@dataclass(frozen=True)
class Paths:
    config_file: Path
    governance_file: Path
    state_db: Path
    local_db: Path
    run_dir: Path
    log_dir: Path
    socket_file: Path
    """The daemon's Unix socket; its lock, pid and token files sit next to it."""
    aai_dir: Path
    """Where ``fruitctl aai install`` puts ``<app_id>/aai.json`` (seed 004: ``~/.aai``)."""

    @property
    def caldav_db(self) -> Path:
        """The CalDAV mirror: a local.db-shaped file kept in step with the server."""
        return self.local_db.with_name("caldav-cache.db")

    @classmethod
    def resolve(cls, env: Mapping[str, str]) -> Paths:
        home = env.get("FRUITCTL_HOME")
        if home:
            root = Path(home).expanduser().resolve()
            config, data, run, logs = root, root, root / "run", root / "logs"
            aai = root / "aai"
        else:
            config = Path(platformdirs.user_config_dir(APP))
            data = Path(platformdirs.user_data_dir(APP))
            run = _runtime_dir(env, data)
            logs = Path(platformdirs.user_log_dir(APP))
            aai = Path.home() / ".aai"
        socket = env.get(SOCKET_ENV)
        return cls(
            config_file=config / "config.toml",
            governance_file=config / "governance.yaml",
            state_db=data / "state.db",
            local_db=data / "local.db",
            run_dir=run,
            log_dir=logs,
            socket_file=Path(socket).expanduser() if socket else run / "fruitctl.sock",
            aai_dir=aai,
        )


def _runtime_dir(env: Mapping[str, str], data: Path) -> Path:
    # Without XDG_RUNTIME_DIR (servers, containers) platformdirs falls back to a directory in the
    # shared /tmp; the socket and lock belong somewhere only this user can write: the data dir.
    if sys.platform.startswith("linux") and not env.get("XDG_RUNTIME_DIR"):
        return data / "run"
    return Path(platformdirs.user_runtime_dir(APP))
