"""Seed 001's filesystem tools, safe against paths that change between the check and the use.

``PathRules.check`` decides on a resolved path; a link swapped in afterwards must not carry the
call elsewhere. So every object is opened with ``O_NOFOLLOW`` (a link at the last component fails)
and, once open, the descriptor itself says where it is (``/proc/self/fd`` on Linux, ``F_GETPATH``
on macOS) and is checked again; elsewhere its inode must match a fresh look at the checked path.
Writes happen inside the verified parent folder's descriptor: a temporary file created there,
synced, then renamed over the target, so a reader sees the old content or the new, never half.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from fruitctl.capabilities.files.kept import KeptFiles
from fruitctl.domain.dates import format_datetime
from fruitctl.domain.errors import (
    Conflict,
    ExecutionFailed,
    FruitctlError,
    InvalidParams,
    NotFound,
    PermissionDenied,
)
from fruitctl.domain.path_rules import PathRules

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | _CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
_F_GETPATH = 50  # macOS <sys/fcntl.h>; Python's fcntl module does not name it
_MAXPATHLEN = 1024
_LINK_ERRNOS = {errno.ELOOP, errno.EMLINK}  # what O_NOFOLLOW on a link gives (EMLINK: FreeBSD)


@dataclass(frozen=True)
class FileService:
    """Reads, lists, writes and deletes files within the ``PathRules`` of each call; ``kept``
    holds the copies a deletion keeps for its undo (None: nothing is kept, no undo)."""

    kept: KeptFiles | None = None

    def read_file(self, path: str, rules: PathRules, max_bytes: int) -> dict[str, Any]:
        """The UTF-8 text of a regular file of at most ``max_bytes``."""
        real = rules.check(path)
        with _opened(real, _READ_FLAGS, rules, path) as (fd, _), _os_errors(path):
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise InvalidParams(f"'{path}' is not a regular file, so it cannot be read.")
            data = _read_limited(fd, info.st_size, max_bytes, path)
        return {"path": str(real), "size": len(data), "content": _text(data, path)}

    def list_directory(self, path: str, rules: PathRules) -> dict[str, Any]:
        """The folder's entries by name: links shown as links, forbidden entries left out."""
        real = rules.check(path)
        with _opened(real, _DIR_FLAGS, rules, path) as (fd, where), _os_errors(path):
            entries = _entries(fd, where, rules)
        return {"path": str(real), "entries": entries, "count": len(entries)}

    def write_file(
        self, path: str, content: str, rules: PathRules, max_bytes: int
    ) -> dict[str, Any]:
        """Replace (or create) a file with ``content`` atomically; never through a link."""
        data = _encoded(content, max_bytes, path)
        target = rules.check(path, for_write=True)
        with _opened(target.parent, _DIR_FLAGS, rules, path, target.name) as (folder, _):
            existing = _existing_target(folder, target.name, path)
            with _os_errors(path):
                _replace(folder, target.name, data, existing)
        return {"path": str(target), "size": len(data), "created": existing is None}

    def delete_file(
        self, path: str, rules: PathRules, keep_bytes: int, keep_seconds: float
    ) -> dict[str, Any]:
        """Delete one regular file (never a link or a folder). A file of at most ``keep_bytes``
        is first copied, with its mode, into ``kept`` for ``keep_seconds``: its undo."""
        target = rules.check(path, for_write=True)
        if self.kept is not None:
            self.kept.sweep()
        with _opened(target.parent, _DIR_FLAGS, rules, path, target.name) as (folder, _):
            info = _deletable(folder, target.name, path)
            kept = None
            if self.kept is not None and info.st_size <= keep_bytes:
                data = _read_same(folder, target.name, info, keep_bytes, path)
                mode = stat.S_IMODE(info.st_mode)
                kept = self.kept.keep(str(target), data, mode, keep_seconds)
            try:
                with _os_errors(path):
                    if _identity(_deletable(folder, target.name, path)) != _identity(info):
                        raise Conflict(f"'{path}' was replaced while being deleted; nothing was.")
                    os.unlink(target.name, dir_fd=folder)
            except BaseException:
                if kept is not None and self.kept is not None:
                    self.kept.remove(kept.id)
                raise
            with suppress(OSError):
                os.fsync(folder)
        until = datetime.fromtimestamp(kept.until).astimezone() if kept else None
        return {
            "path": str(target),
            "size": info.st_size,
            "kept": kept is not None,
            "keptId": kept.id if kept else None,
            "keptUntil": format_datetime(until) if until else None,
        }

    def restore_file(self, path: str, kept_id: str, rules: PathRules) -> dict[str, Any]:
        """Put a deleted file back from its kept copy, bytes and mode; never over something
        that now exists at its path. The copy is removed once the file is back."""
        if self.kept is None:
            raise ExecutionFailed("No copies of deleted files are kept here; nothing to restore.")
        self.kept.sweep()
        kept = self.kept.find(kept_id)
        if kept is None:
            raise NotFound(
                f"The copy of '{path}' kept for undo is gone: it is kept only for a while after "
                "the deletion.",
                path=path,
            )
        target = rules.check(path, for_write=True)
        if str(target) != kept.path:
            raise InvalidParams(f"That kept copy is of '{kept.path}', not of '{path}'.")
        data = self.kept.data(kept)
        parent = target.parent
        with _opened(parent, _DIR_FLAGS, rules, path, target.name) as (folder, _), _os_errors(path):
            _put_back(folder, target.name, data, kept.mode, path)
        self.kept.remove(kept.id)
        return {"path": str(target), "size": kept.size, "mode": f"{kept.mode:04o}"}


# -- opening and verifying ------------------------------------------------------------------------


@contextmanager
def _opened(
    real: Path, flags: int, rules: PathRules, shown: str, child: str | None = None
) -> Iterator[tuple[int, Path]]:
    """A descriptor for ``real`` and where it is, verified to be where the rules allow (with
    ``child`` in it)."""
    try:
        fd = os.open(real, flags)
    except OSError as exc:
        if isinstance(exc, NotADirectoryError) and os.path.islink(real):
            exc = OSError(errno.ELOOP, "a link")  # Linux: O_DIRECTORY wins over O_NOFOLLOW
        raise _translate(exc, shown, folder=child is not None) from exc
    try:
        yield fd, _verified(fd, real, rules, shown, child)
    finally:
        os.close(fd)


def _verified(fd: int, real: Path, rules: PathRules, shown: str, child: str | None) -> Path:
    """Where ``fd`` really is; ``real`` itself when the system cannot tell and the inode matches."""
    where = fd_path(fd)
    if where is None:
        opened, ok = real, _same_object(fd, real)
    else:
        opened = Path(where)
        ok = rules.allows(opened / child if child else opened)
    if ok:
        return opened
    raise PermissionDenied(
        f"Cannot use '{shown}': it changed while being opened and now leads outside the "
        "allowed folders.",
        path=shown,
    )


def fd_path(fd: int) -> str | None:
    """Where an open descriptor really is, when the system can say (Linux, macOS)."""
    try:
        if sys.platform.startswith("linux"):
            return os.readlink(f"/proc/self/fd/{fd}")
        if sys.platform == "darwin":
            import fcntl

            buffer = fcntl.fcntl(fd, _F_GETPATH, bytes(_MAXPATHLEN))
            return os.fsdecode(buffer.split(b"\0", 1)[0])
    except OSError:
        return None
    return None


def _same_object(fd: int, real: Path) -> bool:
    """Fallback: the path still resolves to itself and names the very inode that was opened
    (a path that cannot be looked up again has changed, as far as anyone can tell)."""
    try:
        if os.path.realpath(real) != str(real):
            return False
        now = os.stat(real, follow_symlinks=False)
    except OSError:
        return False
    opened = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (opened.st_dev, opened.st_ino)


@contextmanager
def _os_errors(shown: str) -> Iterator[None]:
    """Operating-system failures as fruitctl errors a person can act on."""
    try:
        yield
    except FruitctlError:
        raise
    except OSError as exc:
        raise _translate(exc, shown) from exc


def _translate(exc: OSError, shown: str, *, folder: bool = False) -> FruitctlError:
    """``folder``: the error came from opening the folder that is to hold ``shown``."""
    if exc.errno in _LINK_ERRNOS:
        which = "its folder" if folder else "it"
        return PermissionDenied(
            f"Cannot use '{shown}': {which} is (or just became) a symbolic link, which is not "
            "followed.",
            path=shown,
        )
    if folder and isinstance(exc, FileNotFoundError | NotADirectoryError):
        return NotFound(f"The folder that would hold '{shown}' does not exist.", path=shown)
    if isinstance(exc, FileNotFoundError):
        return NotFound.path(shown)
    if isinstance(exc, PermissionError):
        return PermissionDenied(f"The system refused access to '{shown}'.", path=shown)
    if isinstance(exc, NotADirectoryError):
        return InvalidParams(f"'{shown}' is not a folder (or a part of the path is not).")
    if isinstance(exc, IsADirectoryError):
        return InvalidParams(f"'{shown}' is a folder, not a file.")
    if exc.errno == errno.ENAMETOOLONG:
        return InvalidParams.path_too_long(shown)
    return ExecutionFailed(f"Could not use '{shown}': {exc.strerror or exc}.", path=shown)


# -- reading --------------------------------------------------------------------------------------


def _read_limited(fd: int, size: int, max_bytes: int, shown: str) -> bytes:
    if size > max_bytes:
        raise _too_big(shown, max_bytes)
    chunks: list[bytes] = []
    remaining = max_bytes + 1  # one byte more tells a file that grew past the limit
    while remaining > 0:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise _too_big(shown, max_bytes)
    return data


def _text(data: bytes, shown: str) -> str:
    binary = InvalidParams(f"'{shown}' is a binary file (not UTF-8 text), so it cannot be read.")
    if b"\0" in data:
        raise binary
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise binary from exc


def _too_big(shown: str, max_bytes: int) -> InvalidParams:
    return InvalidParams(
        f"'{shown}' is larger than the limit of {_size(max_bytes)} ({max_bytes} bytes)."
    )


def _size(count: int) -> str:
    return f"{count / (1024 * 1024):g} MB"


# -- listing --------------------------------------------------------------------------------------


def _entries(fd: int, where: Path, rules: PathRules) -> list[dict[str, Any]]:
    """Forbidden names are judged where the folder really is, not where it was asked for."""
    with os.scandir(fd) as items:
        found = [_entry(i) for i in items if not rules.is_forbidden(where / i.name)]
    return sorted((e for e in found if e is not None), key=lambda e: str(e["name"]))


def _entry(item: os.DirEntry[str]) -> dict[str, Any] | None:
    """One entry, never following a link; ``None`` when it vanished while being listed."""
    try:
        info = item.stat(follow_symlinks=False)
    except FileNotFoundError:
        return None
    modified = datetime.fromtimestamp(info.st_mtime).astimezone()
    return {
        "name": item.name,
        "type": _kind(info.st_mode),
        "size": info.st_size,
        "modified": format_datetime(modified),
    }


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISREG(mode):
        return "file"
    return "other"


# -- writing --------------------------------------------------------------------------------------


def _encoded(content: str, max_bytes: int, shown: str) -> bytes:
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidParams("The content has characters that cannot be written as UTF-8.") from exc
    if len(data) > max_bytes:
        raise InvalidParams(
            f"The content for '{shown}' is {len(data)} bytes, over the limit of "
            f"{_size(max_bytes)} ({max_bytes} bytes)."
        )
    return data


def _existing_target(folder: int, name: str, shown: str) -> int | None:
    """The permission bits of the file being replaced; refuses a link, a folder or a device."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _translate(exc, shown) from exc
    if stat.S_ISLNK(info.st_mode):
        raise PermissionDenied(
            f"Cannot write '{shown}': it is a symbolic link, which is never written through.",
            path=shown,
        )
    if not stat.S_ISREG(info.st_mode):
        raise InvalidParams(f"Cannot write '{shown}': it exists and is not a regular file.")
    return stat.S_IMODE(info.st_mode) & 0o777


def _replace(folder: int, name: str, data: bytes, mode: int | None) -> None:
    """Temp file, fsync, rename over ``name``, fsync the folder; the temp file never survives."""
    temp, fd = _create_temp(folder)
    try:
        try:
            _write_all(fd, data)
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp, dir_fd=folder)
        raise
    os.fsync(folder)


def _create_temp(folder: int) -> tuple[str, int]:
    """A new private file in ``folder``; its name does not grow with the target's."""
    for _ in range(16):
        temp = f".fruitctl-{secrets.token_hex(8)}.tmp"
        try:
            return temp, os.open(temp, _TEMP_FLAGS, 0o600, dir_fd=folder)
        except FileExistsError:
            continue
    raise ExecutionFailed("Could not create a temporary file next to the target.")


# -- deleting and putting back ---------------------------------------------------------------------


def _deletable(folder: int, name: str, shown: str) -> os.stat_result:
    """What is at ``name``, when it is a regular file; a link, a folder or a device refused."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError as exc:
        raise _translate(exc, shown) from exc
    refused = not_deletable(info.st_mode, shown)
    if refused is not None:
        raise refused
    return info


def not_deletable(mode: int, shown: str) -> FruitctlError | None:
    """Why what has ``mode`` cannot be deleted (a link, a folder, a device), or None."""
    if stat.S_ISLNK(mode):
        return PermissionDenied(
            f"Cannot delete '{shown}': it is a symbolic link, which is never followed or removed.",
            path=shown,
        )
    if stat.S_ISDIR(mode):
        return InvalidParams(
            f"Cannot delete '{shown}': it is a folder, and delete_file deletes files only."
        )
    if not stat.S_ISREG(mode):
        return InvalidParams(f"Cannot delete '{shown}': it is not a regular file.")
    return None


def _identity(info: os.stat_result) -> tuple[int, int, int, int]:
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def _read_same(folder: int, name: str, info: os.stat_result, max_bytes: int, shown: str) -> bytes:
    """The bytes of the very file ``info`` describes (one swapped in meanwhile is refused)."""
    with _os_errors(shown):
        fd = os.open(name, _READ_FLAGS, dir_fd=folder)
        try:
            if _identity(os.fstat(fd)) != _identity(info):
                raise Conflict.changed_while_deleted(shown)
            data = _read_limited(fd, info.st_size, max_bytes, shown)
        finally:
            os.close(fd)
    if len(data) != info.st_size:
        raise Conflict.changed_while_deleted(shown)
    return data


def _put_back(folder: int, name: str, data: bytes, mode: int, shown: str) -> None:
    """A temp file with the bytes and mode, linked to ``name`` (which fails, atomically, when
    something exists there), the temp name removed."""
    if _exists(folder, name):
        raise _taken(shown)
    temp, fd = _create_temp(folder)
    try:
        try:
            _write_all(fd, data)
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
        except FileExistsError as exc:
            raise _taken(shown) from exc
    finally:
        with suppress(OSError):
            os.unlink(temp, dir_fd=folder)
    os.fsync(folder)


def _exists(folder: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _taken(shown: str) -> Conflict:
    return Conflict(
        f"Cannot restore '{shown}': something exists at that path now, and it is never "
        "replaced. Move it away, then undo again."
    )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
