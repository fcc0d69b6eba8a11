"""Where fruitctl's files live: with ``FRUITCTL_HOME`` set, everything is inside it
(``config.toml``, ``governance.yaml``, ``state.db``, ``local.db``, ``run/``, ``logs/``);
otherwise the platform's conventional config, data, runtime and log directories.

``Paths.owned`` lists every one of them, in one place: the file tools refuse all of it (but the
workspace) to every caller, so a folder fruitctl starts using is protected by being named here.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from platformdirs.api import PlatformDirsABC

APP = "fruitctl"
SOCKET_ENV = "FRUITCTL_SOCKET_PATH"
CREDENTIALS_NAME = "credentials.json"
RUNTIME_SUFFIXES = (".lock", ".pid", ".token")
"""The daemon's files beside its socket (``daemon.lifecycle.RuntimeFiles``): the socket's name
with these suffixes. Listed here so that a socket put in a shared folder still has them owned."""


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
    agent_socket_setting: Path | None = None
    """``[server] agent_socket`` when the configuration sets it (``config.load`` fills it in)."""

    @property
    def caldav_db(self) -> Path:
        """The CalDAV mirror: a local.db-shaped file kept in step with the server."""
        return self.local_db.with_name("caldav-cache.db")

    @property
    def credentials_file(self) -> Path:
        """Where ``fruitctl auth login`` keeps the URL and token of a gateway elsewhere."""
        return self.config_file.parent / CREDENTIALS_NAME

    @property
    def workspace(self) -> Path:
        """The agents' folder (``$WORKSPACE`` in governance.yaml): in the data folder, yet not
        fruitctl's own - it is the one place file tools write to by default."""
        return self.local_db.parent / "workspace"

    @property
    def kept_files(self) -> Path:
        """The copies ``delete_file`` keeps for its undo: in the data folder, so fruitctl's own
        (no file tool reaches it), private (0700)."""
        return self.local_db.parent / "kept"

    @property
    def agent_socket(self) -> Path:
        """The agents' socket: as configured, else in ``agents/`` beside the daemon's socket."""
        socket = self.socket_file
        return self.agent_socket_setting or socket.parent / "agents" / socket.name

    def owned(self) -> tuple[Path, ...]:
        """Every file and folder fruitctl keeps its own state in: its configuration (all of it:
        config.toml, governance.yaml, credentials.json), its stores and secrets, its logs, its run
        folder, the daemon's socket with its lock, pid and token, and the agents' socket folder.
        ``workspace`` may lie inside one of them; it is the only part that is not owned."""
        sockets = (self.socket_file, *(self.socket_file.with_suffix(s) for s in RUNTIME_SUFFIXES))
        return (
            self.config_file.parent,  # config.toml, governance.yaml, credentials.json
            self.local_db.parent,  # state.db, local.db, the CalDAV mirror, secrets/
            self.log_dir,
            self.run_dir,
            *sockets,
            self.agent_socket.parent,
        )

    @classmethod
    def resolve(cls, env: Mapping[str, str]) -> Paths:
        home = env.get("FRUITCTL_HOME")
        if home:
            root = Path(home).expanduser().resolve()
            config, data, run, logs = root, root, root / "run", root / "logs"
            aai = root / "aai"
        else:  # the platform's folders: only they need platformdirs (FRUITCTL_HOME does not)
            import platformdirs

            dirs = platformdirs.PlatformDirs(APP)
            config = Path(dirs.user_config_dir)
            data = Path(dirs.user_data_dir)
            run = _runtime_dir(env, data, dirs)
            logs = Path(dirs.user_log_dir)
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


def _runtime_dir(env: Mapping[str, str], data: Path, dirs: PlatformDirsABC) -> Path:
    # Without XDG_RUNTIME_DIR (servers, containers) platformdirs falls back to a directory in the
    # shared /tmp; the socket and lock belong somewhere only this user can write: the data dir.
    if sys.platform.startswith("linux") and not env.get("XDG_RUNTIME_DIR"):
        return data / "run"
    return Path(dirs.user_runtime_dir)
