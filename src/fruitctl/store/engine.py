"""Open a fruitctl SQLite database: private file, WAL, foreign keys, migrated to head.

Migrations run only when the stored revision differs from the head, so the common start-up costs
one ``SELECT`` and never imports Alembic.

Every failure of the file itself - busy, full, read-only, not a database, damaged, I/O - is the
domain error ``faults`` names for it, from opening on and for every statement of the engine (a
``handle_error`` listener). A file SQLite cannot open for writing where it lies (a read-only
folder or disk) is opened read-only instead: reads work, and each write says why it cannot.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.exc import OperationalError

from fruitctl.domain.errors import FruitctlError, StorageFault
from fruitctl.private import make_dirs
from fruitctl.store.faults import translate

Kind = Literal["local", "state"]
WRITE_OPTION = "fruitctl_write"
"""Execution option: ``engine.execution_options(fruitctl_write=True)`` begins with IMMEDIATE."""

MIGRATIONS = Path(__file__).parent / "migrations"
# The newest revision of each database; tests check these against the migration scripts.
HEADS: dict[Kind, str] = {"local": "0006_reminder_repeats", "state": "0005_call_retries"}


def open_database(path: Path, kind: Kind, *, synchronous: str = "NORMAL") -> Engine:
    """An engine on ``path`` (created 0600 inside a 0700 directory), migrated to the head;
    read-only when only reading is possible there. Raises ``StorageFault`` (or ``StoreBusy``,
    for a schema to migrate while another process writes) naming the file."""
    try:
        _create_private(path)
    except OSError as exc:
        raise translate(exc, path) or _cannot_make(path, exc) from exc
    engine = _engine(path, f"sqlite:///{path}", _pragmas(synchronous))
    try:
        revision = current_revision(engine)
    except StorageFault as exc:
        if exc.details.get("reason") not in ("cannot_open", "read_only"):
            raise
        engine.dispose()
        return _read_only(path, kind, exc)
    if revision is None and _made_new(engine, kind):
        return engine
    if revision != HEADS[kind]:
        upgrade(engine, kind)
    return engine


# The head schema of each kind, as the statements that make it (``iterdump`` of a file Alembic
# just migrated from nothing): a new file is made by running them, a few milliseconds instead of
# Alembic's tens (and its import's). They ship beside the migrations (``head_schema_file``:
# every process, a daemon or a CLI on a fresh home, makes its first file without Alembic),
# checked against the migrations by a test; a shipped file for another revision is not used,
# and the first file this process makes is then migrated and its statements kept. The rows a
# migration writes into a new file are the local store's first list and first calendar, one
# row each (``_FIRST_ROWS``): a file made from the head schema gives them an id and a creation
# time of their own, as the migration does. A head schema with any other row of its own is not
# kept (None): such a file is migrated every time.
_FIRST_ROWS = ("lists", "calendars")
_HEAD_SCHEMA: dict[Kind, list[str] | None] = {}


def _made_new(engine: Engine, kind: Kind) -> bool:
    """Make an empty file's schema from the head schema this process already made once; False
    when it has none yet (it is made by migrating this file) or the file is not empty."""
    if kind in _HEAD_SCHEMA and _HEAD_SCHEMA[kind] is None:
        return False  # migrated every time
    if kind not in _HEAD_SCHEMA:
        shipped = shipped_head_schema(kind)
        if shipped is not None:
            _HEAD_SCHEMA[kind] = shipped
    raw = engine.raw_connection()
    try:
        sqlite = raw.driver_connection
        assert isinstance(sqlite, sqlite3.Connection)
        statements = _HEAD_SCHEMA.get(kind)
        if statements is None:
            if _has_tables(sqlite):
                return False
            upgrade(engine, kind)
            _HEAD_SCHEMA[kind] = _schema_only(_statements(sqlite))
            return True
        return _run_on_empty(sqlite, statements)
    finally:
        raw.close()


def head_schema_file(kind: Kind) -> Path:
    return MIGRATIONS / kind / "head_schema.json"


def shipped_head_schema(kind: Kind) -> list[str] | None:
    """The statements shipped for this kind's head (``HEADS``), or None: no file, one that does
    not read, or one made for another revision."""
    try:
        statements = json.loads(head_schema_file(kind).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (isinstance(statements, list) and all(isinstance(s, str) for s in statements)):
        return None
    version = f"INSERT INTO \"alembic_version\" VALUES('{HEADS[kind]}');"
    return _schema_only(statements) if version in statements else None


def head_statements(engine: Engine, kind: Kind) -> list[str] | None:
    """What ``head_schema_file`` holds: the statements of a file just migrated to the head."""
    upgrade(engine, kind)
    raw = engine.raw_connection()
    try:
        sqlite = raw.driver_connection
        assert isinstance(sqlite, sqlite3.Connection)
        return _schema_only(_statements(sqlite))
    finally:
        raw.close()


def _run_on_empty(sqlite: sqlite3.Connection, statements: list[str]) -> bool:
    sqlite.execute("BEGIN IMMEDIATE")  # another process making the same file waits, then sees it
    if _has_tables(sqlite):
        sqlite.execute("ROLLBACK")
        return False
    for statement in statements:
        sqlite.execute(statement)
    _renew_first_rows(sqlite)
    sqlite.execute("COMMIT")
    return True


def _renew_first_rows(sqlite: sqlite3.Connection) -> None:
    """Give the first list and calendar the head schema brought an id and a time of their own,
    made as their migrations make them."""
    now = datetime.now().astimezone().replace(microsecond=0).isoformat()
    for table in _FIRST_ROWS:
        if sqlite.execute(f"SELECT 1 FROM sqlite_master WHERE name = '{table}'").fetchone():
            sqlite.execute(f"UPDATE {table} SET id = ?, created = ?", (secrets.token_hex(8), now))


def _has_tables(sqlite: sqlite3.Connection) -> bool:
    (count,) = sqlite.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return bool(count)


def _statements(sqlite: sqlite3.Connection) -> list[str]:
    return [s for s in sqlite.iterdump() if s not in ("BEGIN TRANSACTION;", "COMMIT;")]


def _schema_only(statements: list[str]) -> list[str] | None:
    """The statements, when the only rows they write are the alembic revision and one first row
    of each ``_FIRST_ROWS`` table; None otherwise."""
    rows = [s for s in statements if s.startswith("INSERT INTO ")]
    kept = ("alembic_version", *_FIRST_ROWS)
    own = [s for s in rows if not any(s.startswith(f'INSERT INTO "{t}"') for t in kept)]
    firsts = [sum(s.startswith(f'INSERT INTO "{t}"') for s in rows) for t in _FIRST_ROWS]
    return None if own or any(n > 1 for n in firsts) else statements


def current_revision(engine: Engine) -> str | None:
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except OperationalError:  # no such table: a new file
        return None


def _engine(path: Path, url: str, on_connect: Any) -> Engine:
    engine = create_engine(url)
    event.listen(engine, "connect", on_connect)
    event.listen(engine, "begin", _begin)
    event.listen(engine, "handle_error", _faults_of(path))
    return engine


def _read_only(path: Path, kind: Kind, why: StorageFault) -> Engine:
    """The file opened read-only, for a place SQLite cannot write (a read-only folder or disk):
    first as usual, then ``immutable`` - which needs no ``-shm`` file beside a WAL database, and
    is true of a file nobody can change there. The schema must be current already."""
    for options in ("mode=ro", "mode=ro&immutable=1"):
        engine = _engine(path, f"sqlite:///file:{path}?{options}&uri=true", _read_only_pragmas)
        try:
            revision = current_revision(engine)
        except StorageFault:
            engine.dispose()
            continue
        if revision != HEADS[kind]:
            engine.dispose()
            raise StorageFault(
                f"{path} is read-only and its schema is older than this fruitctl's: it cannot "
                "be brought up to date. Make it and its folder writable, then run fruitctl again.",
                file=str(path),
                reason="read_only",
            )
        return engine
    raise why


def _faults_of(path: Path) -> Any:
    def handle(context: Any) -> None:
        found = translate(context.original_exception, path)
        if found is not None:
            raise found from context.original_exception

    return handle


def _cannot_make(path: Path, exc: OSError) -> StorageFault:
    return StorageFault(
        f"{path} cannot be created: {exc.strerror or exc}. Check the folder, or set "
        "FRUITCTL_HOME to a folder fruitctl can write.",
        file=str(path),
        reason="cannot_open",
    )


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
            raise StorageFault(
                f"{path} is a symbolic link, and a database file must not be one: put the "
                "real file there, or set FRUITCTL_HOME to the folder that holds it.",
                file=str(path),
                reason="symlink",
            ) from exc
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


def _read_only_pragmas(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    dbapi_connection.isolation_level = None  # as ``_pragmas``; the journal mode is the file's
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def check(path: Path, kind: Kind) -> dict[str, Any]:
    """What ``doctor`` says of one database file: ``ok``, ``not created yet``, or ``broken``
    with the error (which names the file and what to do) - never an exception."""
    found: dict[str, Any] = {"file": str(path)}
    if not path.exists():
        return {**found, "state": "not created yet"}
    try:
        engine = open_database(path, kind)
        try:
            with engine.connect() as conn:
                verdict = conn.exec_driver_sql("PRAGMA quick_check").scalars().all()
        finally:
            engine.dispose()
    except FruitctlError as exc:
        return {**found, "state": "broken", "error": exc.to_dict()}
    if verdict != ["ok"]:
        damaged = StorageFault(
            f"{path} is damaged ({'; '.join(map(str, verdict[:3]))}): restore it from a "
            "backup, or move it aside and fruitctl starts a new, empty one.",
            file=str(path),
            reason="damaged",
        )
        return {**found, "state": "broken", "error": damaged.to_dict()}
    return {**found, "state": "ok"}
