"""What the file writes change. ``write_file``: a file's size and hash before, the size after; no
undo (the bytes it replaced are not kept). ``delete_file``: the same size and hash, with what a
person needs to decide - the mode, the modification time, the first lines of a text file - and
whether the deletion can be undone (a file over the keeping limit cannot, said before approval);
its undo is ``restore_file`` from the copy kept (``files.kept``). Any difference at approval time,
content or time, fails the proposal with a conflict, as for ``write_file``."""

from __future__ import annotations

import codecs
import hashlib
import os
import stat
from datetime import datetime
from typing import Any

from fruitctl.capabilities.files.kept import KEEP_HOURS, keep_limit
from fruitctl.domain.dates import format_datetime
from fruitctl.tools.model import Args, Change, Snapshot

HASH_CHUNK = 1 << 20  # a before-snapshot hashes a file of any size in 1 MiB steps
PREVIEW_BYTES = 2048  # what a delete proposal reads for its first lines, at most
PREVIEW_LINES = 10
_NOFOLLOW = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


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
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # before fdopen, which refuses a folder
        os.close(fd)
        return {"path": path, "exists": True, "sha256": None, "size": None}
    with os.fdopen(fd, "rb") as opened:
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


# -- delete_file ----------------------------------------------------------------------------------


def _delete_state(path: str, ctx: Any) -> Snapshot:
    """The file as a person deciding on its deletion sees it, and whether a copy can be kept."""
    state = _file_state(path)
    try:
        info = os.stat(path, follow_symlinks=False)
    except (OSError, ValueError):
        return state | {"kind": None}
    limit = keep_limit(ctx.rules("delete_file").max_file_size_mb)
    state |= {
        "kind": _kind(info.st_mode),
        "bytes": info.st_size,  # also when the file cannot be read (its hash then None)
        "mode": f"{stat.S_IMODE(info.st_mode):04o}",
        "modified": format_datetime(datetime.fromtimestamp(info.st_mtime).astimezone()),
        "modifiedNs": info.st_mtime_ns,
        "keepLimit": limit,
        "kept": info.st_size <= limit,
    }
    if state["sha256"] is not None:
        state["firstLines"] = _first_lines(path)
    return state


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISLNK(mode):
        return "symbolic link"
    return "special file"


def _first_lines(path: str) -> str | None:
    """The first lines of a text file, bounded; None for a binary one (a NUL byte, or bytes
    that are not UTF-8 - a character cut at the bound is not counted against it)."""
    try:
        fd = os.open(path, _NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as opened:
        head = opened.read(PREVIEW_BYTES)
    if b"\0" in head:
        return None
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return None
    return "".join(text.splitlines(keepends=True)[:PREVIEW_LINES])


def _delete_summary(args: Args, ctx: Any) -> str:
    state = _delete_state(args["path"], ctx)
    if state.get("kind") != "file":
        return f"Delete {args['path']}"
    said = f"Delete {args['path']} ({state['bytes']} bytes)"
    if not state["kept"]:
        said += ": it cannot be undone (too large to keep a copy)"
    return said


def _delete_inverse(args: Args, before: Snapshot, result: Any) -> dict[str, Any] | None:
    if not isinstance(result, dict) or not result.get("keptId"):
        return None
    return {"tool": "restore_file", "args": {"path": result["path"], "kept": result["keptId"]}}


def _delete_diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
    path = args["path"]
    if before.get("kind") != "file":
        what = before.get("kind") or "nothing"
        return [{"target": path, "field": "file", "before": what, "after": "not deleted"}]
    rows = [
        {
            "target": path,
            "field": "file",
            "before": f"{before['bytes']} bytes, mode {before['mode']}, "
            f"modified {before['modified']}",
            "after": "deleted",
        }
    ]
    lines = before.get("firstLines")
    shown = "(a binary file: not shown)" if lines is None else lines
    rows.append({"target": path, "field": "first lines", "before": shown, "after": None})
    undo = (
        f"possible for {KEEP_HOURS} hours (a copy is kept)"
        if before["kept"]
        else f"not possible: the file is over the size limit ({before['keepLimit']} bytes), so no "
        "copy is kept"
    )
    rows.append({"target": path, "field": "undo", "before": None, "after": undo})
    return rows


DELETE_FILE = Change(
    _delete_summary,
    lambda a, c: _delete_state(a["path"], c),
    lambda b, c: _delete_state(b["path"], c),
    _delete_inverse,
    _delete_diff,
)


# -- restore_file ---------------------------------------------------------------------------------


def _restore_state(args: Args, ctx: Any) -> Snapshot:
    """Whether anything is at the path now, and the kept copy's size and mode (None: gone)."""
    path = args["path"]
    kept = ctx.files.kept.find(args["kept"]) if ctx.files.kept is not None else None
    return {
        "path": path,
        "kept": args["kept"],
        "exists": os.path.lexists(path),
        "size": kept.size if kept else None,
        "mode": f"{kept.mode:04o}" if kept else None,
    }


def _restore_diff(args: Args, before: Snapshot) -> list[dict[str, Any]]:
    was = "something exists there" if before["exists"] else "no file"
    if before["size"] is None:
        after = "nothing: the kept copy is gone"
    else:
        after = f"{before['size']} bytes, mode {before['mode']}, as it was before the deletion"
    return [{"target": args["path"], "field": "file", "before": was, "after": after}]


RESTORE_FILE = Change(
    lambda a, c: f"Put back {a['path']} as it was before it was deleted",
    _restore_state,
    lambda b, c: _restore_state(b, c),
    lambda a, b, r: None,
    _restore_diff,
)
