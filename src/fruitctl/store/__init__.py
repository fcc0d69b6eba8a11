"""SQLite databases: engines with fruitctl's pragmas, brought to their newest schema by Alembic."""

from fruitctl.store.engine import open_database

__all__ = ["open_database"]
