"""What ``write_file`` changes: a file's size and hash before, the size after; no undo (the
bytes it replaced are not kept)."""

from __future__ import annotations

import hashlib
import os
import stat
from typing import Any

from fruitctl.tools.model import Args, Change, Snapshot

HASH_CHUNK = 1 << 20  # a before-snapshot hashes a file of any size in 1 MiB steps


def _file_state(path: str) -> Snapshot:
    """What is at ``path`` now, for telling later whether it changed: its size and a hash read
    in chunks (a file of any size costs one chunk of memory), never through a final symlink,
    never a file's content."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return {"path": path, "exists": False, "sha256": None, "size": None}
    except OSError:  # a symlink, a loop, a name too long, no access: nothing this call may use
        return {"path": path, "exists": os.path.lexists(path), "sha256": None, "size": None}
    with os.fdopen(fd, "rb") as opened:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return {"path": path, "exists": True, "sha256": None, "size": None}
        digest, size = hashlib.sha256(), 0
        while chunk := opened.read(HASH_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return {"path": path, "exists": True, "sha256": digest.hexdigest(), "size": size}


def _write_diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
    size = len(args["content"].encode())
    was = f"{before['size']} bytes" if before.get("exists") else "no file"
    return [{"target": args["path"], "field": "content", "before": was, "after": f"{size} bytes"}]


WRITE_FILE = Change(
    lambda a, c: f"Write {len(a['content'].encode())} bytes to {a['path']}",
    lambda a, c: _file_state(a["path"]),
    lambda b, c: _file_state(b["path"]),
    lambda a, b, r: None,
    _write_diff,
)
