"""A database file that cannot be used is a stable error naming the file and what to do - never
an internal error - tested on real files: garbage bytes, a truncated database, a full one (a
size limit on the real database), one another connection holds the write lock of, and a
read-only one (where this machine can make one: chmod, or ``chattr +i`` for root)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import event, text

from fruitctl.backends.local import LocalReminders
from fruitctl.domain.errors import StorageFault, StoreBusy
from fruitctl.ports import NewReminder, ReminderQuery, ReminderScope
from fruitctl.store import open_database

ROW = "INSERT INTO settings (key, value, updated, updated_by) VALUES (:k, :v, '', 'test')"


@pytest.mark.parametrize("kind", ["state", "local"])
def test_garbage_bytes_are_not_a_database(tmp_path: Path, kind: str) -> None:
    path = tmp_path / f"{kind}.db"
    path.write_bytes(os.urandom(3 * 4096))
    with pytest.raises(StorageFault) as refused:
        open_database(path, kind)  # type: ignore[arg-type]
    assert refused.value.details == {"file": str(path), "reason": "not_a_database"}
    assert str(path) in refused.value.message and "backup" in refused.value.message


def test_a_truncated_database_is_damaged(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    engine = open_database(path, "state")
    with engine.begin() as conn:
        conn.execute(text(ROW), [{"k": f"k{i}", "v": "x" * 2000} for i in range(300)])
    engine.dispose()
    with open(path, "r+b") as file:
        file.truncate(path.stat().st_size // 3)
    with pytest.raises(StorageFault) as refused:  # opening, or at the latest reading
        opened = open_database(path, "state")
        with opened.connect() as conn:
            conn.execute(text("SELECT count(*), max(length(value)) FROM settings")).all()
    assert refused.value.details["reason"] in ("damaged", "not_a_database")
    assert refused.value.details["file"] == str(path)


def test_a_full_database_refuses_the_write_and_keeps_reading(tmp_path: Path) -> None:
    engine = open_database(tmp_path / "local.db", "local")
    backend = LocalReminders(engine)
    (default,) = backend.lists()
    backend.create([NewReminder(list_id=default.id, title="before")])
    # As if the disk were full: SQLite may not grow the real file past its current pages.
    event.listen(engine, "connect", _no_more_pages)
    engine.dispose()  # new connections take the limit
    with pytest.raises(StorageFault) as refused:
        backend.create([NewReminder(list_id=default.id, title="x" * 4000)] * 50)
    assert refused.value.details == {"file": str(tmp_path / "local.db"), "reason": "full"}
    assert "Free some space" in refused.value.message
    titles = [r.title for r in backend.fetch(_everything())]
    backend.close()
    assert titles == ["before"]  # nothing half-written, and reads work


def test_a_held_write_lock_is_a_retryable_busy_error(tmp_path: Path) -> None:
    path = tmp_path / "local.db"
    engine = open_database(path, "local")
    backend = LocalReminders(engine)
    (default,) = backend.lists()
    with _holding_write_lock(path):
        engine.dispose()
        event.listen(engine, "connect", _short_wait)
        with pytest.raises(StoreBusy) as busy:
            backend.create([NewReminder(list_id=default.id, title="blocked")])
        assert [r.title for r in backend.fetch(_everything())] == []  # readers never wait
    backend.close()
    assert busy.value.code == "backend_unavailable" and busy.value.retryable
    assert busy.value.details == {"file": str(path), "reason": "busy"}


@pytest.mark.process
def test_a_read_only_place_still_reads_and_says_why_it_cannot_write(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    engine = open_database(folder / "state.db", "state")
    with engine.begin() as conn:
        conn.execute(text(ROW), {"k": "kept", "v": "yes"})
    engine.dispose()
    with _read_only(folder):
        engine = open_database(folder / "state.db", "state")
        with engine.connect() as conn:
            kept = conn.execute(text("SELECT value FROM settings WHERE key = 'kept'")).scalar()
        with pytest.raises(StorageFault) as refused, engine.begin() as conn:
            conn.execute(text(ROW), {"k": "new", "v": "no"})
        engine.dispose()
    assert kept == "yes"
    assert refused.value.details == {"file": str(folder / "state.db"), "reason": "read_only"}


def test_a_folder_where_the_file_should_be_cannot_be_opened(tmp_path: Path) -> None:
    (tmp_path / "state.db").mkdir()
    with pytest.raises(StorageFault) as refused:
        open_database(tmp_path / "state.db", "state")
    assert refused.value.details["reason"] in ("cannot_open", "read_only")


# -- helpers -------------------------------------------------------------------------------------


def _no_more_pages(dbapi: sqlite3.Connection, _record: object) -> None:
    pages = dbapi.execute("PRAGMA page_count").fetchone()[0]
    dbapi.execute(f"PRAGMA max_page_count = {pages}")


def _short_wait(dbapi: sqlite3.Connection, _record: object) -> None:
    dbapi.execute("PRAGMA busy_timeout = 50")  # the error, not the wait, is under test


def _everything() -> ReminderQuery:
    return ReminderQuery(scope=ReminderScope(status="all"))


class _holding_write_lock:
    """A second, real connection holding BEGIN IMMEDIATE on the file (another process's write)."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path, isolation_level=None)

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, *_: object) -> None:
        self._db.execute("ROLLBACK")
        self._db.close()


class _read_only:
    """The folder and its files unwritable for this process: chmod for a user, ``chattr +i``
    for root (whom modes do not stop); skips where neither works."""

    def __init__(self, folder: Path) -> None:
        self._paths = [*folder.iterdir(), folder]

    def __enter__(self) -> None:
        if os.geteuid() != 0:
            for path in self._paths:
                path.chmod(0o500 if path.is_dir() else 0o400)
            return
        chattr = shutil.which("chattr")
        if chattr is None or not _immutable(chattr, self._paths, "+i"):
            pytest.skip("root here cannot make a file read-only (no chattr +i)")

    def __exit__(self, *_: object) -> None:
        if os.geteuid() == 0:
            _immutable(shutil.which("chattr") or "chattr", self._paths, "-i")
        for path in self._paths:
            path.chmod(0o700 if path.is_dir() else 0o600)


def _immutable(chattr: str, paths: list[Path], flag: str) -> bool:
    done = subprocess.run([chattr, flag, *map(str, paths)], capture_output=True, check=False)
    return done.returncode == 0
