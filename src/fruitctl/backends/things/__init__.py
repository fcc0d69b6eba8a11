"""The ``things`` backend: the person's Things 3 to-dos, read from Things' own database.

Reads come from the database (``reader.py``), opened read-only for each read; writes go
through the ``things:///`` URL scheme and are confirmed by watching the database
(``writer.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from fruitctl.backends.things.reader import ThingsDatabase
from fruitctl.backends.things.writer import ThingsWriter

__all__ = ["GROUP_CONTAINER", "ThingsDatabase", "ThingsWriter", "default_database"]

GROUP_CONTAINER = Path.home() / "Library/Group Containers/JLMPQHK86H.com.culturedcode.ThingsMac"
DATABASE = Path("Things Database.thingsdatabase") / "main.sqlite"


def default_database(container: Path = GROUP_CONTAINER) -> Path | None:
    """Where Things keeps its database on this Mac: ``ThingsData-*/`` (Things 3.15 and later)
    or the older place; ``None`` off macOS or when Things is not installed."""
    if sys.platform != "darwin" and container == GROUP_CONTAINER:
        return None
    for candidate in sorted(container.glob(f"ThingsData-*/{DATABASE}")):
        return candidate
    older = container / DATABASE
    return older if older.is_file() else None
