"""What a CalDAV mirror (a local.db-shaped file kept in step with a server) needs to remember.

The reminders and events themselves live in the ordinary tables, so every local read path works
on the mirror unchanged; these tables hold the bookkeeping of the sync:

- ``caldav_collections``: each mirrored calendar collection - its href, the RFC 6578 sync-token
  and the ctag (or collection ETag) last seen, and which components it holds (its kind);
- ``caldav_objects``: each calendar object resource - href, UID, ETag, and the text last seen,
  which writes start from (a PUT carries ``If-Match`` with that ETag);
- ``caldav_meta``: facts about the account (which server and user, when last synced).

In a plain local.db these tables stay empty.

Revision ID: 0004_caldav_mirror
Revises: 0003_calendars
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_caldav_mirror"
down_revision = "0003_calendars"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "caldav_collections",
        sa.Column("id", sa.Text, primary_key=True),  # the list / calendar id in the mirror
        sa.Column("href", sa.Text, nullable=False, unique=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("components", sa.Text, nullable=False),  # "VEVENT,VTODO": the kind
        sa.Column("sync_token", sa.Text),
        sa.Column("ctag", sa.Text),
        sa.Column("position", sa.Integer, nullable=False),
    )
    op.create_table(
        "caldav_objects",
        sa.Column("href", sa.Text, primary_key=True),
        sa.Column(
            "collection_id",
            sa.Text,
            sa.ForeignKey("caldav_collections.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("uid", sa.Text),  # NULL: the object could not be read (kept to skip it)
        sa.Column("component", sa.Text),  # VTODO, VEVENT, or another / NULL when unreadable
        sa.Column("etag", sa.Text),
        sa.Column("parent_uid", sa.Text),  # a VTODO's RELATED-TO parent, linked once it exists
        sa.Column("ics", sa.Text),
    )
    op.create_index("ix_caldav_objects_uid", "caldav_objects", ["uid"])
    op.create_index("ix_caldav_objects_collection", "caldav_objects", ["collection_id"])
    op.create_table(
        "caldav_meta",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("caldav_meta")
    op.drop_index("ix_caldav_objects_collection", "caldav_objects")
    op.drop_index("ix_caldav_objects_uid", "caldav_objects")
    op.drop_table("caldav_objects")
    op.drop_table("caldav_collections")
