"""Open a fruitctl SQLite database: private file, WAL, foreign keys, migrated to head.

Migrations run only when the stored revision differs from the head, so the common start-up costs
one ``SELECT`` and never imports Alembic.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.exc import OperationalError

from fruitctl.private import make_dirs

Kind = Literal["local", "state"]
WRITE_OPTION = "fruitctl_write"
"""Execution option: ``engine.execution_options(fruitctl_write=True)`` begins with IMMEDIATE."""

MIGRATIONS = Path(__file__).parent / "migrations"
# The newest revision of each database; tests check these against the migration scripts.
HEADS: dict[Kind, str] = {"local": "0005_store_meta", "state": "0003_proposal_trace"}


def open_database(path: Path, kind: Kind, *, synchronous: str = "NORMAL") -> Engine:
    """An engine on ``path`` (created 0600 inside a 0700 directory), migrated to the head."""
    _create_private(path)
    engine = create_engine(f"sqlite:///{path}")
    event.listen(engine, "connect", _pragmas(synchronous))
    event.listen(engine, "begin", _begin)
    if current_revision(engine) != HEADS[kind]:
        upgrade(engine, kind)
    return engine


def current_revision(engine: Engine) -> str | None:
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except OperationalError:
        return None


def upgrade(engine: Engine, kind: Kind, revision: str = "head") -> None:
    from alembic import command  # imported here: needed only when the schema moves

    with engine.begin() as conn:
        command.upgrade(alembic_config(kind, conn), revision)


def alembic_config(kind: Kind, connection: Any = None) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS / kind))
    config.attributes["connection"] = connection
    return config


def _create_private(path: Path) -> None:
    make_dirs(path.parent)
    # Only ever create: never open and close a database file that exists. POSIX record locks
    # belong to the process, and closing *any* descriptor of a file drops them all - so a second
    # engine opened on a file this process already uses would silently strip the first one's
    # SQLite locks, and its connections would go on reading a stale snapshot (a daemon would
    # never see another process's writes).
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR | os.O_NOFOLLOW, 0o600)
    except FileExistsError as exc:
        if path.is_symlink():  # as O_NOFOLLOW alone would have refused it
            message = "a database file must not be a symbolic link"
            raise OSError(errno.ELOOP, message, str(path)) from exc
        return
    os.close(fd)


def _begin(conn: Connection) -> None:
    # A writer takes the write lock up front (BEGIN IMMEDIATE), so a read-modify-write never
    # fails half-way on lock upgrade; readers stay deferred and never block each other.
    immediate = conn.get_execution_options().get(WRITE_OPTION, False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _pragmas(synchronous: str) -> Any:
    def apply(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        # Transactions are begun by `_begin`, not by the driver's own heuristics.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=5000")
        cursor.close()

    return apply
