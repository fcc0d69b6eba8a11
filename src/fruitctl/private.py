"""Folders and files that are their user's alone.

Every folder fruitctl makes is 0700, the ones above it too (``make_dirs``: ``Path.mkdir`` would
give the umask's mode to all but the last). A folder that holds a secret - the daemon's run
folder, the API's signing secret, the MCP token, the stored credentials - must also be ours and
closed to everyone else (``private_folder``); a file holding one is 0600 from the moment it
exists, is never followed through a symlink, and is refused when someone else could read it.
Nothing here changes the mode of something the person made: what is too open is refused, and
the message says the command that fixes it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path


class NotPrivate(Exception):
    """A folder or file that must be private cannot be used; the message names it and the fix
    (and never holds what the file holds)."""


def make_dirs(path: Path) -> None:
    """``path`` and every missing folder above it, each created 0700."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another process
            folder.mkdir(mode=0o700)


def private_folder(path: Path, holds: str) -> None:
    """Make ``path`` (0700, with any missing parent) or check that it is a folder of ours that
    no one else may enter; ``holds`` names what it is for, in a refusal."""
    try:
        make_dirs(path)
        info = path.lstat()
    except OSError as exc:
        raise NotPrivate(f"cannot make {path} for {holds}: {exc.strerror or exc}") from exc
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise NotPrivate(f"{path} is not a folder (a symlink?); {holds} needs one.")
    _ours_alone(
        info,
        foreign=f"{path} belongs to another user; {holds} needs a folder of your own.",
        exposed=f"{path} is open to other users (mode {{mode}}); {holds} needs a folder only "
        f"you can enter: chmod 700 {path}",
    )


def read_private(path: Path) -> str | None:
    """The text of a private file, or None when there is none. A symlink, a file of another
    user and one others may read are refused."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        why = "it is a symlink" if exc.errno in (errno.ELOOP, errno.EMLINK) else exc.strerror
        raise NotPrivate(f"cannot read {path} ({why or exc}); remove it.") from exc
    with os.fdopen(fd, "r", encoding="utf-8", errors="replace") as handle:
        _ours_alone(
            os.fstat(handle.fileno()),
            foreign=f"{path} belongs to another user; remove it.",
            exposed=f"{path} is readable by other users (mode {{mode}}): run 'chmod 600 {path}'",
        )
        return handle.read()


def _ours_alone(info: os.stat_result, *, foreign: str, exposed: str) -> None:
    """Refuse what another user owns, or what others may read or enter (``{mode}`` in
    ``exposed`` shows its mode)."""
    if info.st_uid != os.geteuid():
        raise NotPrivate(foreign)
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        raise NotPrivate(exposed.replace("{mode}", oct(mode)))


def write_private(path: Path, text: str) -> None:
    """``text`` into ``path``, 0600 from creation, replaced atomically (a reader sees the old
    file or the new one, never half of either)."""
    fd, temporary = tempfile.mkstemp(prefix=".t", dir=path.parent)  # mkstemp: 0600, O_EXCL
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_or_create(path: Path, make: Callable[[], str]) -> tuple[str, bool]:
    """The text of the private file ``path``; when there is none, ``make()`` written there
    first (by whichever process gets there first). True when made just now."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        found = read_private(path)
        if found is None:  # removed between the two calls
            return read_or_create(path, make)
        return found, False
    except OSError as exc:
        raise NotPrivate(f"cannot create {path}: {exc.strerror or exc}") from exc
    text = make()
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    return text, True
