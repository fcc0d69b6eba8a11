"""A reminder's start date and its alarms (a repeat rule has had its column since 0001).

``start`` is kept as ``due`` is, as its wire text (a date stays a date); ``alarms`` as the JSON
list of the wire's alarm objects (``domain.alarms``), ``NULL`` for none. Existing reminders keep
everything and have neither.

Revision ID: 0006_reminder_repeats
Revises: 0005_store_meta
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_reminder_repeats"
down_revision = "0005_store_meta"
branch_labels = None
depends_on = None


# SQLite adds and drops a column in place (3.35+); a batch copy of the table would lose the
# expression index of the open view (ix_reminders_open), which reflection cannot read back.
def upgrade() -> None:
    op.add_column("reminders", sa.Column("start", sa.Text))
    op.add_column("reminders", sa.Column("alarms", sa.Text))


def downgrade() -> None:
    op.drop_column("reminders", "alarms")
    op.drop_column("reminders", "start")
