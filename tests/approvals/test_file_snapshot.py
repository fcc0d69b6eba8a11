"""What a write_file proposal remembers of its target: a size and a hash read in steps (never the
content, never through a final symlink, never blocking on a pipe). Real files in tmp_path."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from fruitctl.capabilities.files.changes import HASH_CHUNK, _file_state


def test_a_file_larger_than_one_step_is_hashed_whole(tmp_path: Path) -> None:
    data = os.urandom(2 * HASH_CHUNK + 123)
    target = tmp_path / "big.bin"
    target.write_bytes(data)
    seen = _file_state(str(target))
    assert seen == {
        "path": str(target),
        "exists": True,
        "sha256": hashlib.sha256(data).hexdigest(),
        "size": len(data),
    }


def test_a_symlink_a_pipe_and_nothing_are_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("do not hash me")
    (tmp_path / "link").symlink_to(secret)
    os.mkfifo(tmp_path / "pipe")  # opened plainly, this would wait for a writer forever
    for name, exists in (("link", True), ("pipe", True), ("absent", False)):
        seen = _file_state(str(tmp_path / name))
        assert (seen["exists"], seen["sha256"], seen["size"]) == (exists, None, None), name
    assert _file_state(str(tmp_path / ("x" * 300)))["exists"] is False  # a name too long
