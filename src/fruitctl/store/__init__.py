"""SQLite databases: engines with fruitctl's pragmas, brought to their newest schema by Alembic."""

from fruitctl.store.engine import check, open_database

__all__ = ["check", "open_database"]
