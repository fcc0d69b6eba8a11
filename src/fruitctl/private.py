"""Folders fruitctl makes are its user's alone.

``Path.mkdir(parents=True, mode=0o700)`` gives the mode to the last folder only: the ones above
it get the umask's (often 0755). ``make_dirs`` makes every missing folder 0700, and leaves those
that exist as they are (a folder the person made is theirs to set).
"""

from __future__ import annotations

import contextlib
from pathlib import Path


def make_dirs(path: Path) -> None:
    """``path`` and every missing folder above it, each created 0700."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another process
            folder.mkdir(mode=0o700)
