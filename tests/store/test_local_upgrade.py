"""An existing local.db, made by the schema before reminders had a start and alarms
(``0005_store_meta``), upgrades in place at open: every reminder, its tags and its repeat rule
kept, the new fields empty, and the store writes them afterwards."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import create_engine, inspect, text

from fruitctl.backends.local import LocalReminders
from fruitctl.domain.alarms import Alarm
from fruitctl.store import engine as store_engine
from fruitctl.store import open_database

BEFORE = "0005_store_meta"
ROW = {
    "id": "r1",
    "title": "bins",
    "notes": "the green one",
    "due": "2026-03-02T09:00:00+01:00",
    "stamp": "2026-02-20T09:00:00+01:00",
    "rule": "FREQ=WEEKLY;BYDAY=MO",
}


def _made_by_the_old_schema(path: Path) -> str:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    old = create_engine(f"sqlite:///{path}")
    store_engine.upgrade(old, "local", BEFORE)
    with old.begin() as conn:
        list_id = conn.execute(text("SELECT id FROM lists WHERE is_default = 1")).scalar_one()
        conn.execute(
            text(
                "INSERT INTO reminders (id, list_id, title, notes, is_completed, priority, "
                "is_flagged, due, due_sort, created, created_sort, modified, recurrence) VALUES "
                "(:id, :list_id, :title, :notes, 0, 5, 1, :due, 1772438400, :stamp, 1771574400, "
                ":stamp, :rule)"
            ),
            {**ROW, "list_id": list_id},
        )
        conn.execute(
            text("INSERT INTO reminder_tags VALUES ('r1', 'outside', 0)"),
        )
    columns = {c["name"] for c in inspect(old).get_columns("reminders")}
    assert "alarms" not in columns and "start" not in columns  # the old schema indeed
    old.dispose()
    return str(list_id)


def test_an_old_store_upgrades_with_its_data_kept(home: Path) -> None:
    path = home / "local.db"
    list_id = _made_by_the_old_schema(path)
    engine = open_database(path, "local")
    assert store_engine.current_revision(engine) == store_engine.HEADS["local"]
    store = LocalReminders(engine)
    kept = store.get("r1")
    assert (kept.title, kept.notes, kept.listId) == ("bins", "the green one", list_id)
    assert (kept.priority, kept.isFlagged, kept.tags) == (5, True, ("outside",))
    assert (kept.dueDate, kept.recurrence) == (ROW["due"], ROW["rule"])
    assert (kept.startDate, kept.alarms) == (None, ())
    changed = store.update(
        "r1",
        {
            "alarms": (Alarm(minutesBefore=10),),
            "startDate": datetime(2026, 3, 1, 18, 0, tzinfo=ZoneInfo("Europe/Rome")),
        },
    )
    assert changed.alarms == (Alarm(minutesBefore=10),)
    assert changed.startDate == "2026-03-01T18:00:00+01:00"
    store.close()
