"""The ``things`` backend: the person's Things 3 to-dos, read from Things' own database.

Reads come from the database (``reader.py``), opened read-only for each read; writes go
through the ``things:///`` URL scheme and are confirmed by watching the database
(``writer.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from fruitctl.backends.things.place import locate
from fruitctl.backends.things.reader import ThingsDatabase
from fruitctl.backends.things.writer import ThingsWriter
from fruitctl.domain.errors import FruitctlError

__all__ = ["GROUP_CONTAINER", "ThingsDatabase", "ThingsWriter", "default_database"]

GROUP_CONTAINER = Path.home() / "Library/Group Containers/JLMPQHK86H.com.culturedcode.ThingsMac"


def default_database(container: Path = GROUP_CONTAINER) -> Path | None:
    """Where Things keeps its database on this Mac (``place.locate``); ``None`` off macOS or
    when Things is not installed; the container itself when macOS keeps fruitctl out of it,
    so that every read says which permission to give (``ThingsDatabase`` looks in it again)."""
    if sys.platform != "darwin" and container == GROUP_CONTAINER:
        return None
    try:
        return locate(container)
    except FruitctlError:
        return container
