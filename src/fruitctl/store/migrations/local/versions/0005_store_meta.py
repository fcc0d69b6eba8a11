"""Facts about the store itself, as key/value pairs.

``zone``: the time zone the stored reminder times are written in. When the person's zone changes
(``[server] timezone``, or the host's), opening the store rewrites them into the new one, so
every answer stays in one zone and stored texts still compare in time order.

Revision ID: 0005_store_meta
Revises: 0004_caldav_mirror
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_store_meta"
down_revision = "0004_caldav_mirror"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "store_meta",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("store_meta")
