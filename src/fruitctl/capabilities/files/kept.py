"""The copies ``delete_file`` keeps so that a deletion can be undone.

Each deleted file small enough to keep becomes two files in fruitctl's private data folder
(``Paths.kept_files``, 0700, one of fruitctl's own places the file tools never reach): its bytes
(``<id>.bin``, 0600) and a record of where it was, its mode and until when it is kept
(``<id>.json``). The record is written last, through a rename, so a copy either has both or is
an orphan the next sweep removes. Past its time a copy is removed by the next delete or undo
(``sweep``); the undo then says the copy is gone.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fruitctl.domain.errors import ExecutionFailed, InvalidParams, NotFound
from fruitctl.private import NotPrivate, private_folder

KEEP_HOURS = 24
"""How long a deleted file's copy is kept: its deletion's undo window."""
DEFAULT_MAX_MB = 10.0
"""The size cap of a file tool when governance sets none: a file tool is never unbounded."""
KEPT_ID = re.compile(r"^[0-9a-f]{32}$")
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | _CLOEXEC


def keep_limit(max_file_size_mb: float | None) -> int:
    """The largest file a deletion keeps a copy of, in bytes: the tool's size cap."""
    return int((max_file_size_mb or DEFAULT_MAX_MB) * 1024 * 1024)


@dataclass(frozen=True)
class Kept:
    """One kept copy, as its record says."""

    id: str
    path: str
    size: int
    mode: int
    until: float


@dataclass(frozen=True)
class KeptFiles:
    folder: Path
    clock: Callable[[], float] = field(default=time.time)

    def keep(self, path: str, data: bytes, mode: int, seconds: float) -> Kept:
        """Store ``data`` and its record; the copy's id."""
        self._ready()
        kept = Kept(secrets.token_hex(16), path, len(data), mode, self.clock() + seconds)
        bin_path, record = self._bin(kept.id), self._record(kept.id)
        try:
            _write_new(bin_path, data)
            temp = record.with_suffix(".tmp")
            body = {"path": kept.path, "size": kept.size, "mode": kept.mode, "until": kept.until}
            _write_new(temp, json.dumps(body).encode())
            os.rename(temp, record)
            _sync_folder(self.folder)
        except OSError as exc:
            self.remove(kept.id)
            with suppress(OSError):
                os.unlink(record.with_suffix(".tmp"))
            raise ExecutionFailed(
                f"Could not keep a copy of '{path}' for undo ({exc.strerror or exc}); "
                "nothing was deleted."
            ) from exc
        return kept

    def find(self, kept_id: str) -> Kept | None:
        """The copy's record when it is still kept (its time not over), else None."""
        if not KEPT_ID.match(kept_id):
            raise InvalidParams("The kept copy's id is not one fruitctl gives (32 hex digits).")
        record = _read_json(self._record(kept_id))
        if record is None or record["until"] <= self.clock():
            return None
        return Kept(kept_id, record["path"], record["size"], record["mode"], record["until"])

    def data(self, kept: Kept) -> bytes:
        try:
            fd = os.open(self._bin(kept.id), _READ)
        except FileNotFoundError as exc:
            raise NotFound(f"The kept copy of '{kept.path}' is gone.", path=kept.path) from exc
        with os.fdopen(fd, "rb") as opened:
            data = opened.read()
        if len(data) != kept.size:
            raise ExecutionFailed(f"The kept copy of '{kept.path}' is damaged; nothing restored.")
        return data

    def remove(self, kept_id: str) -> None:
        for path in (self._record(kept_id), self._bin(kept_id)):
            with suppress(FileNotFoundError):
                os.unlink(path)

    def sweep(self) -> int:
        """Remove every copy past its time (and the halves a crash left): how many."""
        if not self.folder.is_dir():
            return 0
        now, removed = self.clock(), 0
        for entry in os.scandir(self.folder):
            kept_id, _, suffix = entry.name.partition(".")
            if not KEPT_ID.match(kept_id):
                continue
            if suffix == "json":
                record = _read_json(Path(entry.path))
                due = record is None or record["until"] <= now
            else:  # a copy without its record, or a record never renamed: a crash's leftovers
                due = not self._record(kept_id).exists()
            if due:
                self.remove(kept_id)
                with suppress(FileNotFoundError):
                    os.unlink(self.folder / f"{kept_id}.tmp")
                removed += suffix == "json"
        return removed

    def _ready(self) -> None:
        try:
            private_folder(self.folder, "the copies kept to undo a deletion")
        except NotPrivate as exc:
            raise ExecutionFailed(f"Cannot keep a copy for undo: {exc}") from exc

    def _bin(self, kept_id: str) -> Path:
        return self.folder / f"{kept_id}.bin"

    def _record(self, kept_id: str) -> Path:
        return self.folder / f"{kept_id}.json"


def _write_new(path: Path, data: bytes) -> None:
    fd = os.open(path, _NEW, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        fd = os.open(path, _READ)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as opened:
        if not stat.S_ISREG(os.fstat(opened.fileno()).st_mode):
            return None
        try:
            record = json.loads(opened.read())
        except ValueError:
            return None
    if not isinstance(record, dict) or not {"path", "size", "mode", "until"} <= record.keys():
        return None
    return record
