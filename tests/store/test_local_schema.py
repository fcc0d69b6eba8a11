"""local.db: migrations, the schema the backend expects, private files, and query plans that
stay index-driven (no full scan, no sort) at any size."""

from __future__ import annotations

import os
import stat
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, text

from fruitctl.backends.local import LocalReminders
from fruitctl.backends.local.reminders import AT_ONCE_ROWS, scope_filter
from fruitctl.backends.local.rows import ORDERS, base_select
from fruitctl.backends.local.tables import metadata
from fruitctl.domain.errors import StorageFault
from fruitctl.ports import NewReminder, ReminderQuery, ReminderScope
from fruitctl.store import engine as store_engine
from fruitctl.store import open_database


@pytest.fixture
def engine(home: Path) -> Engine:
    return open_database(home / "local.db", "local")


def test_head_constant_matches_the_migration_scripts() -> None:
    scripts = ScriptDirectory.from_config(store_engine.alembic_config("local"))
    assert scripts.get_current_head() == store_engine.HEADS["local"]


def test_tables_match_what_the_migrations_create(engine: Engine) -> None:
    found = inspect(engine)
    for table in metadata.sorted_tables:
        columns = {c["name"]: c for c in found.get_columns(table.name)}
        assert set(columns) == {c.name for c in table.columns}, table.name
        for column in table.columns:
            assert columns[column.name]["nullable"] == column.nullable, (table.name, column.name)


def test_downgrade_and_upgrade_again(engine: Engine) -> None:
    store_engine.upgrade(engine, "local")  # at head already: nothing to do
    from alembic import command

    with engine.begin() as conn:
        command.downgrade(store_engine.alembic_config("local", conn), "base")
    assert "reminders" not in inspect(engine).get_table_names()
    store_engine.upgrade(engine, "local")
    assert store_engine.current_revision(engine) == store_engine.HEADS["local"]


def test_a_new_store_has_one_default_list(engine: Engine) -> None:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT name, is_default FROM lists")).all()
    assert [tuple(r) for r in rows] == [("Reminders", 1)]


def test_wal_and_foreign_keys_are_on(engine: Engine) -> None:
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1


def test_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        open_database(tmp_path / "data" / "local.db", "local").dispose()
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "data" / "local.db").stat().st_mode) == 0o600


def test_a_symlinked_database_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.db"
    target.write_bytes(b"")
    (tmp_path / "local.db").symlink_to(target)
    with pytest.raises(StorageFault, match="symbolic link"):
        open_database(tmp_path / "local.db", "local")


def _plan(engine: Engine, statement: object) -> str:
    with engine.connect() as conn:
        compiled = statement.compile(engine, compile_kwargs={"literal_binds": True})  # type: ignore[attr-defined]
        rows = conn.execute(text(f"EXPLAIN QUERY PLAN {compiled}")).all()
    return "\n".join(str(row[-1]) for row in rows)


@pytest.mark.parametrize(
    ("order", "scope", "index"),
    [
        ("newest", ReminderScope(("L",), "incomplete"), "ix_reminders_list_newest"),
        ("oldest", ReminderScope(("L",), "incomplete"), "ix_reminders_list_newest"),
        ("newest", ReminderScope(None, "incomplete"), "ix_reminders_newest"),
        ("open", ReminderScope(None, "incomplete"), "ix_reminders_open"),
    ],
)
def test_hot_queries_walk_an_index_without_sorting(
    engine: Engine, order: str, scope: ReminderScope, index: str
) -> None:
    LocalReminders(engine)  # the schema is in place
    statement = base_select().where(*scope_filter(scope)).order_by(*ORDERS[order]).limit(50)
    plan = _plan(engine, statement)
    assert f"USING INDEX {index}" in plan, plan
    assert "TEMP B-TREE" not in plan, plan


@pytest.mark.parametrize("lists", [("L",), None])
@pytest.mark.parametrize("status", ["incomplete", "completed", "all"])
@pytest.mark.parametrize("order", ["newest", "oldest", "priority", "dueDate", "open"])
def test_a_fetch_is_answered_at_once_exactly_when_its_plan_walks_an_index(
    engine: Engine, lists: tuple[str, ...] | None, status: str, order: str
) -> None:
    # A read runs on a front door's loop only when the store says so (answers_at_once): its
    # judgement must agree with SQLite's plan, both ways, for every scope, status and order.
    backend = LocalReminders(engine)
    scope = ReminderScope(lists, status)  # type: ignore[arg-type]
    plan = _plan(engine, base_select().where(*scope_filter(scope)).order_by(*ORDERS[order]))
    indexed = "TEMP B-TREE" not in plan and "SCAN reminders" not in plan
    assert backend.answers_at_once(ReminderQuery(scope, order, 50)) is indexed, plan  # type: ignore[arg-type]
    # ...and only for a bounded number of rows, with no filter on due dates.
    assert not backend.answers_at_once(ReminderQuery(scope, order, None))  # type: ignore[arg-type]
    assert not backend.answers_at_once(ReminderQuery(scope, order, 200, offset=AT_ONCE_ROWS))  # type: ignore[arg-type]
    due = ReminderQuery(scope, order, 50, due_before=datetime.now(UTC))  # type: ignore[arg-type]
    assert not backend.answers_at_once(due)
    dated = ReminderQuery(scope, order, 50, include_no_due=False)  # type: ignore[arg-type]
    assert not backend.answers_at_once(dated)


def test_the_backend_writes_with_immediate_transactions(engine: Engine) -> None:
    writer = LocalReminders(engine)._writer
    assert writer.get_execution_options().get(store_engine.WRITE_OPTION) is True


def test_concurrent_writers_neither_fail_nor_lose_updates(home: Path) -> None:
    # Separate engines, as separate processes would have: read-modify-write transactions that
    # took only a read lock would fail with "database is locked" on upgrade.
    engines = [open_database(home / "local.db", "local") for _ in range(4)]
    backends = [LocalReminders(e) for e in engines]
    default = backends[0].lists(with_counts=False)[0].id
    target = backends[0].create([NewReminder(list_id=default, title="shared")])[0]
    errors: list[BaseException] = []

    def work(backend: LocalReminders, n: int) -> None:
        try:
            for i in range(25):
                backend.create([NewReminder(list_id=default, title=f"w{n}-{i}")])
                backend.update(target.id, {"tags": (f"t{n}-{i}",), "priority": i % 10})
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(b, n)) for n, b in enumerate(backends)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    everything = backends[0].fetch(ReminderQuery(ReminderScope(None, "all")))
    assert len(everything) == 1 + 4 * 25
    for e in engines:
        e.dispose()
