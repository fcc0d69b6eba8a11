"""Where Things keeps its database, and why it cannot be reached when it cannot.

Things 3.15.16 and later keep it in ``ThingsData-*/Things Database.thingsdatabase/main.sqlite``
inside their Group Container; after a reset or a new sign-in an older ``ThingsData-*`` folder can
stay beside the live one, so the most recently written is the one the app uses. Before, it was
at the container's root.

macOS protects another app's Group Container: without Full Disk Access for the app that runs
fruitctl, looking in it fails with EPERM (``stat`` of a file may still work while ``open``
fails). That is said as a permission to give, never as "Things is not installed" or as
SQLite's "unable to open database file".
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from fruitctl.backends.eventkit.hosts import detect
from fruitctl.domain.errors import BackendUnavailable, FruitctlError, PermissionDenied

DATABASE = Path("Things Database.thingsdatabase") / "main.sqlite"
DATA_FOLDERS = "ThingsData-"
FULL_DISK_ACCESS = "System Settings > Privacy & Security > Full Disk Access"
DENIED = (errno.EPERM, errno.EACCES)


def locate(container: Path) -> Path | None:
    """The database in Things' Group Container ``container``; ``None`` when Things has none
    there (not installed); ``PermissionDenied`` when macOS keeps fruitctl out."""
    try:
        names = os.listdir(container)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise unreachable(container, exc) from exc
    found = [
        (written, path)
        for name in names
        if name.startswith(DATA_FOLDERS)
        and (written := last_written(path := container / name / DATABASE)) is not None
    ]
    if found:
        return max(found)[1]  # the live one; folders a reset left behind are older
    older = container / DATABASE
    return older if last_written(older) is not None else None


def last_written(database: Path) -> float | None:
    """When the app last wrote ``database`` (its write-ahead log included: commits land there
    first); ``None`` when there is no such file."""
    times = [_modified(path) for path in (database, database.with_name(database.name + "-wal"))]
    if times[0] is None:
        return None
    return max(t for t in times if t is not None)


def _modified(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise unreachable(path, exc) from exc


def unreachable(path: Path, exc: OSError) -> FruitctlError:
    """The error for an ``OSError`` met on ``path``: a permission to give when macOS denied it."""
    if exc.errno in DENIED:
        return denied(path)
    return BackendUnavailable(
        f"Cannot read Things' data at {path}: {exc.strerror or exc}.", path=str(path)
    )


def denied(path: Path) -> PermissionDenied:
    return PermissionDenied(
        f"fruitctl may not read Things' data at {path}: macOS protects it. Allow "
        f"{_responsible()} in {FULL_DISK_ACCESS} (add it with + if it is not listed), then "
        "retry.",
        service="things",
        path=str(path),
    )


def _responsible() -> str:
    """The app macOS holds responsible for this process: the one to give Full Disk Access (any
    app or a bare Python can be added there, unlike the Reminders pane)."""
    try:
        found = detect()
    except Exception:  # naming it is a courtesy: the refusal is said all the same
        return "the app that runs fruitctl"
    return found.name if found.kind == "service" else f"{found.name} ({found.path})"
