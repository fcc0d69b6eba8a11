"""The folder or file a code tool works on, checked where it is used.

The policy has checked the path against the tool's rules before the call; here, where a program
is about to be started on it, the path must still be absolute, must not itself be a symbolic link
(as ``read_file`` refuses one) and must exist."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from fruitctl.domain.errors import InvalidParams, NotFound, PermissionDenied


def checked(path: str) -> Path:
    """The real path of ``path``: absolute, not a link, present."""
    if not os.path.isabs(path):
        raise InvalidParams(f"'{path}' is not an absolute path.", path=path)
    try:
        info = os.lstat(path)
    except FileNotFoundError as exc:
        raise NotFound.path(path) from exc
    except OSError as exc:
        raise PermissionDenied.cannot_use(path, str(exc.strerror)) from exc
    if stat.S_ISLNK(info.st_mode):
        raise PermissionDenied(
            f"Cannot use '{path}': it is a symbolic link; give the path it points to.", path=path
        )
    return Path(os.path.realpath(path))


def folder_of(real: Path) -> Path:
    """Where a program runs for ``real``: the folder itself, or a file's folder."""
    return real if real.is_dir() else real.parent
