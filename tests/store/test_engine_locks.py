"""Opening a second engine on a database this process already uses must not strip the first
one's SQLite locks (closing any descriptor of a file drops a process's POSIX locks on it): the
first engine must keep seeing what other processes commit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from fruitctl.domain.errors import StorageFault
from fruitctl.store import open_database

WRITE = (
    "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
    "c.execute('PRAGMA journal_mode=WAL'); "
    "c.execute(\"UPDATE settings SET value = ? WHERE key = 'probe'\", (sys.argv[2],)); c.close()"
)


@pytest.mark.process
def test_a_second_engine_keeps_the_first_seeing_other_processes(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    first = open_database(path, "state")
    with first.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO settings (key, value, updated, updated_by) "
                "VALUES ('probe', 'start', '', 'test')"
            )
        )
    reader = first.raw_connection()
    second = open_database(path, "state")  # e.g. the ledger engine beside the state engine
    seen = []
    for value in ("one", "two", "three"):
        subprocess.run([sys.executable, "-c", WRITE, str(path), value], check=True)
        seen.append(reader.execute("SELECT value FROM settings WHERE key = 'probe'").fetchone()[0])
    reader.close()
    first.dispose()
    second.dispose()
    assert seen == ["one", "two", "three"]


def test_a_symlinked_database_is_still_refused(tmp_path: Path) -> None:
    real = tmp_path / "real.db"
    open_database(real, "state").dispose()
    link = tmp_path / "state.db"
    link.symlink_to(real)
    with pytest.raises(StorageFault, match="symbolic link") as refused:
        open_database(link, "state")
    assert refused.value.details == {"file": str(link), "reason": "symlink"}
