"""SQLAlchemy Core tables of local.db. The schema itself is owned by the Alembic migrations in
``fruitctl.store.migrations.local``; a test checks the two agree."""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    Table,
    Text,
)

metadata = MetaData()

LOCAL_ACCOUNT = "On this computer"
"""The account the embedded store's lists and calendars are in, as a person would say where
they are (Apple's Reminders says "On My Mac" of its own); a mirror of an account says that
account's name instead."""

lists = Table(
    "lists",
    metadata,
    Column("id", Text, primary_key=True),
    Column("name", Text(collation="NOCASE"), nullable=False, unique=True),
    Column("is_default", Boolean, nullable=False),
    Column("position", Integer, nullable=False),
    Column("created", Text, nullable=False),
)

reminders = Table(
    "reminders",
    metadata,
    Column("id", Text, primary_key=True),
    Column("list_id", Text, ForeignKey("lists.id"), nullable=False),
    Column("title", Text, nullable=False),
    Column("notes", Text),
    Column("is_completed", Boolean, nullable=False),
    Column("priority", Integer, nullable=False),
    Column("is_flagged", Boolean, nullable=False),
    Column("due", Text),
    Column("due_sort", Float),
    Column("completion", Text),
    Column("created", Text, nullable=False),
    Column("created_sort", Integer, nullable=False),
    Column("modified", Text, nullable=False),
    Column("url", Text),
    Column("parent_id", Text, ForeignKey("reminders.id", ondelete="SET NULL")),
    Column("recurrence", Text),
    Column("start", Text),
    Column("alarms", Text),  # JSON: the wire's alarm objects
)

reminder_tags = Table(
    "reminder_tags",
    metadata,
    Column("reminder_id", Text, ForeignKey("reminders.id", ondelete="CASCADE"), primary_key=True),
    Column("tag", Text, primary_key=True),
    Column("position", Integer, nullable=False),
)

applied_writes = Table(
    "applied_writes",
    metadata,
    Column("token", Text, primary_key=True),
    Column("at", Float, nullable=False),
    Column("result", Text, nullable=False),
)

calendars = Table(
    "calendars",
    metadata,
    Column("id", Text, primary_key=True),
    Column("name", Text(collation="NOCASE"), nullable=False),
    Column("is_default", Boolean, nullable=False),
    Column("read_only", Boolean, nullable=False),
    Column("color", Text),
    Column("position", Integer, nullable=False),
    Column("created", Text, nullable=False),
)

events = Table(
    "events",
    metadata,
    Column("uid", Text, primary_key=True),
    Column("calendar_id", Text, ForeignKey("calendars.id", ondelete="CASCADE"), nullable=False),
    Column("ics", Text, nullable=False),
    Column("first_start", Float, nullable=False),
    Column("last_end", Float),
    Column("created", Text, nullable=False),
    Column("modified", Text, nullable=False),
    Column("remote", Text),
)

store_meta = Table(
    "store_meta",
    metadata,
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),
)
