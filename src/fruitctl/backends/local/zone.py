"""Stored reminder times follow the person's zone.

Reads hand stored date texts out as they are (no parse, no format), so the texts must already be
in the zone answers are in. The store remembers that zone; when it differs at open - the person
set ``[server] timezone`` or the host moved - every stored time is rewritten into the new zone in
one transaction. The common start costs one ``SELECT``.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, bindparam, select, update
from sqlalchemy.dialects.sqlite import insert

from fruitctl.backends.local.tables import reminders, store_meta
from fruitctl.domain.dates import format_datetime, instant, parse_wire, wire_zone

_KEY = "zone"
_REWRITE = update(reminders).where(reminders.c.id == bindparam("rid"))


def follow_zone(engine: Engine, writer: Engine) -> None:
    """Rewrite stored reminder times into the person's zone if they were written in another."""
    wanted = wire_zone().key
    with engine.connect() as conn:
        stored = conn.execute(select(store_meta.c.value).where(store_meta.c.key == _KEY)).scalar()
    if stored == wanted:
        return
    times = (
        reminders.c.due,
        reminders.c.completion,
        reminders.c.created,
        reminders.c.modified,
        reminders.c.start,
        reminders.c.alarms,
    )
    with writer.begin() as conn:
        rows = [_rezoned(*row) for row in conn.execute(select(reminders.c.id, *times))]
        if rows:
            conn.execute(_REWRITE, rows)
        conn.execute(
            insert(store_meta)
            .values(key=_KEY, value=wanted)
            .on_conflict_do_update(index_elements=[store_meta.c.key], set_={"value": wanted})
        )


def _rezoned(
    rid: str,
    due: str | None,
    completion: str | None,
    created: str,
    modified: str,
    start: str | None,
    alarms: str | None,
) -> dict[str, Any]:
    moment = None if due is None else parse_wire(due)
    return {
        "start": None if start is None else _moment_in_zone(start),
        "alarms": None if alarms is None else _alarms_in_zone(alarms),
        "rid": rid,
        # A date stays a date, but its order key (its midnight) moves with the zone.
        "due": format_datetime(moment) if isinstance(moment, datetime) else due,
        "due_sort": None if moment is None else instant(moment),
        "completion": None if completion is None else _in_zone(completion),
        "created": _in_zone(created),
        "modified": _in_zone(modified),
    }


def _moment_in_zone(text: str) -> str:
    """A date stays a date; a date-time is said in the zone."""
    return text if len(text) == 10 else _in_zone(text)


def _alarms_in_zone(text: str) -> str:
    alarms = json.loads(text)
    for alarm in alarms:
        if "at" in alarm:
            alarm["at"] = _in_zone(alarm["at"])
    return json.dumps(alarms)


def _in_zone(text: str) -> str:
    return format_datetime(datetime.fromisoformat(text))
