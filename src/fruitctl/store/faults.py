"""SQLite's failures as fruitctl's errors: each names the database file and what to do.

One table, used by every engine ``open_database`` makes (a ``handle_error`` listener, so every
statement and every connect goes through it) and by opening itself:

=========================  ===============  =====================================================
SQLite's primary code      fruitctl error   why
=========================  ===============  =====================================================
BUSY, LOCKED               ``StoreBusy``    another process holds the write lock past the wait:
                                            nothing changed, try again (retryable)
FULL                       ``StorageFault`` the disk (or a size limit) is full
READONLY, PERM             ``StorageFault`` the file, its folder or the disk is read-only
CANTOPEN                   ``StorageFault`` the file or its folder cannot be opened
NOTADB, CORRUPT            ``StorageFault`` the file is not a database, or is damaged
IOERR                      ``StorageFault`` the disk failed a read or a write
=========================  ===============  =====================================================

Anything else (a statement that does not fit the schema, say) is a bug, and stays an exception.
SQLite rolls back a statement that fails for any of these reasons: nothing is half-written.
"""

from __future__ import annotations

import errno
from pathlib import Path

from fruitctl.domain.errors import FruitctlError, StorageFault, StoreBusy

_ASIDE = "restore it from a backup, or move it aside and fruitctl starts a new, empty one"
_PLACE = "or set FRUITCTL_HOME to a folder fruitctl can write"
_WHAT: dict[str, tuple[str, str]] = {
    # primary code -> (reason, what the message says after the file's name)
    "FULL": ("full", "cannot grow: the disk is full. Free some space, then try again."),
    "READONLY": (
        "read_only",
        "is read-only (the file, its folder or the disk), so nothing can be changed; reads "
        f"still work. Make it and its folder writable, {_PLACE}.",
    ),
    "CANTOPEN": (
        "cannot_open",
        "cannot be opened: it, or its folder, is missing, not a regular file or not "
        f"accessible. Check the path and its permissions, {_PLACE}.",
    ),
    "NOTADB": ("not_a_database", f"is not a SQLite database (damaged or replaced): {_ASIDE}."),
    "CORRUPT": ("damaged", f"is damaged (its pages do not read back as written): {_ASIDE}."),
    "IOERR": (
        "io_error",
        "could not be read or written: the disk reported an I/O error. Check the disk (and "
        "that it is still attached), then try again.",
    ),
}
_SAME = {"LOCKED": "BUSY", "PERM": "READONLY"}
_OS = {
    errno.ENOSPC: "FULL",
    errno.EDQUOT: "FULL",
    errno.EROFS: "READONLY",
    errno.EACCES: "READONLY",
    errno.EPERM: "READONLY",
    errno.EIO: "IOERR",
}


def translate(exc: BaseException, path: Path) -> FruitctlError | None:
    """The error ``exc`` (a ``sqlite3.Error``, or an ``OSError`` met opening the file) is for a
    caller, or None when it is not a storage fault (a bug, to be reported as one)."""
    if isinstance(exc, FruitctlError):
        return exc
    primary = _primary(exc)
    if primary == "BUSY":
        return StoreBusy(
            f"{path} is busy: another fruitctl process is writing to it. Nothing was changed; "
            "try again in a moment.",
            file=str(path),
            reason="busy",
        )
    if primary not in _WHAT:
        return None
    reason, said = _WHAT[primary]
    return StorageFault(f"{path} {said}", file=str(path), reason=reason)


def _primary(exc: BaseException) -> str | None:
    """SQLite's primary result code without its prefix (``SQLITE_IOERR_WRITE`` -> ``IOERR``)."""
    if isinstance(exc, OSError):
        return _OS.get(exc.errno or 0)
    name = getattr(exc, "sqlite_errorname", None)
    if not isinstance(name, str):
        return "BUSY" if "database is locked" in str(exc) else None
    primary = name.removeprefix("SQLITE_").split("_", 1)[0]
    return _SAME.get(primary, primary)
