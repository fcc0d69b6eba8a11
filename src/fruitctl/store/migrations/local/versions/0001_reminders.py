"""Reminder lists, reminders and their tags, with the default list 'Reminders'.

Revision ID: 0001_reminders
Revises:
"""

import secrets
from datetime import datetime

import sqlalchemy as sa
from alembic import op

revision = "0001_reminders"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lists",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("name", sa.Text(collation="NOCASE"), nullable=False, unique=True),
        sa.Column("is_default", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("created", sa.Text, nullable=False),
    )
    # At most one default list, enforced by the database itself.
    op.create_index(
        "ux_lists_default",
        "lists",
        ["is_default"],
        unique=True,
        sqlite_where=sa.text("is_default = 1"),
    )
    op.create_table(
        "reminders",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("list_id", sa.Text, sa.ForeignKey("lists.id"), nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("notes", sa.Text),
        sa.Column("is_completed", sa.Boolean, nullable=False),
        sa.Column(
            "priority", sa.Integer, sa.CheckConstraint("priority BETWEEN 0 AND 9"), nullable=False
        ),
        sa.Column("is_flagged", sa.Boolean, nullable=False),
        # Dates are kept twice: the exact wire text (what JMESPath compares) and an instant
        # since the epoch (what chronological orders and ranges use).
        sa.Column("due", sa.Text),
        sa.Column("due_sort", sa.Float),  # seconds; a date counts as its local midnight
        sa.Column("completion", sa.Text),
        sa.Column("created", sa.Text, nullable=False),
        sa.Column("created_sort", sa.Integer, nullable=False),
        sa.Column("modified", sa.Text, nullable=False),
        sa.Column("url", sa.Text),
        sa.Column("parent_id", sa.Text, sa.ForeignKey("reminders.id", ondelete="SET NULL")),
        sa.Column("recurrence", sa.Text),
    )
    op.create_index(
        "ix_reminders_list_newest", "reminders", ["list_id", "is_completed", "created_sort", "id"]
    )
    op.create_index("ix_reminders_newest", "reminders", ["is_completed", "created_sort", "id"])
    op.create_index("ix_reminders_list_due", "reminders", ["list_id", "is_completed", "due_sort"])
    op.create_index("ix_reminders_due", "reminders", ["is_completed", "due_sort"])
    # Seed 000's open view, in exactly its ORDER BY, so 200 of 100k need no sort.
    op.create_index(
        "ix_reminders_open",
        "reminders",
        [
            "is_completed",
            sa.text("due_sort IS NULL"),
            "due_sort",
            sa.text("is_flagged DESC"),
            "title",
            "id",
        ],
    )
    op.create_index("ix_reminders_parent", "reminders", ["parent_id"])
    op.create_table(
        "reminder_tags",
        sa.Column(
            "reminder_id",
            sa.Text,
            sa.ForeignKey("reminders.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("tag", sa.Text, primary_key=True),
        sa.Column("position", sa.Integer, nullable=False),
    )
    op.create_index("ix_reminder_tags_tag", "reminder_tags", ["tag"])
    now = datetime.now().astimezone().replace(microsecond=0).isoformat()
    op.execute(
        sa.text(
            "INSERT INTO lists (id, name, is_default, position, created) "
            "VALUES (:id, 'Reminders', 1, 0, :now)"
        ).bindparams(id=secrets.token_hex(8), now=now)
    )


def downgrade() -> None:
    op.drop_table("reminder_tags")
    op.drop_table("reminders")
    op.drop_index("ux_lists_default", "lists")
    op.drop_table("lists")
