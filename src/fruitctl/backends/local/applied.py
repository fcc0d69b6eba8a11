"""Write tokens (``fruitctl.domain.writes``) in the local store: a write done for an approved
proposal records its token inside its own transaction, so running the proposal again replays the
recorded result instead of writing twice - and if the write fails, both roll back together."""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import Connection, select

from fruitctl.backends.local.tables import applied_writes


def replayed(conn: Connection, token: str | None) -> dict[str, Any] | None:
    """What an earlier run of the same proposal recorded for this write, if it happened."""
    if token is None:
        return None
    found = conn.execute(
        select(applied_writes.c.result).where(applied_writes.c.token == token)
    ).scalar()
    return None if found is None else dict(json.loads(found))


def record(conn: Connection, token: str | None, result: dict[str, Any]) -> None:
    if token is not None:
        conn.execute(
            applied_writes.insert().values(token=token, at=time.time(), result=json.dumps(result))
        )
