"""Calendars and their events, with the default calendar 'Calendar'.

An event is kept as its iCalendar text (a VCALENDAR holding one UID: the event, or a series'
master and its overriding occurrences) - the source of truth for recurrence - plus columns that
let a range query skip what cannot overlap it: the earliest start and the latest end (NULL for a
series without end), both in epoch seconds and widened for all-day and floating times.

Revision ID: 0003_calendars
Revises: 0002_applied_writes
"""

import secrets
from datetime import datetime

import sqlalchemy as sa
from alembic import op

revision = "0003_calendars"
down_revision = "0002_applied_writes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "calendars",
        sa.Column("id", sa.Text, primary_key=True),
        # Not unique: a mirrored CalDAV account may hold two calendars of the same name.
        sa.Column("name", sa.Text(collation="NOCASE"), nullable=False),
        sa.Column("is_default", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("read_only", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("color", sa.Text),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("created", sa.Text, nullable=False),
    )
    op.create_index(
        "ux_calendars_default",
        "calendars",
        ["is_default"],
        unique=True,
        sqlite_where=sa.text("is_default = 1"),
    )
    op.create_table(
        "events",
        sa.Column("uid", sa.Text, primary_key=True),
        sa.Column(
            "calendar_id",
            sa.Text,
            sa.ForeignKey("calendars.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("ics", sa.Text, nullable=False),
        sa.Column("first_start", sa.Float, nullable=False),
        sa.Column("last_end", sa.Float),  # NULL: the series never ends
        sa.Column("created", sa.Text, nullable=False),
        sa.Column("modified", sa.Text, nullable=False),
        # Opaque to the local backend: what a mirroring backend keeps with the object
        # (its href and ETag on the server, say). NULL for local events.
        sa.Column("remote", sa.Text),
    )
    op.create_index("ix_events_calendar", "events", ["calendar_id", "first_start"])
    op.create_index("ix_events_range", "events", ["last_end", "first_start"])
    now = datetime.now().astimezone().replace(microsecond=0).isoformat()
    op.execute(
        sa.text(
            "INSERT INTO calendars (id, name, is_default, read_only, position, created) "
            "VALUES (:id, 'Calendar', 1, 0, 0, :now)"
        ).bindparams(id=secrets.token_hex(8), now=now)
    )


def downgrade() -> None:
    op.drop_table("events")
    op.drop_index("ux_calendars_default", "calendars")
    op.drop_table("calendars")
