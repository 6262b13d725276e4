"""Skills (and their revisions) get a description; agents can be moved to the trash.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for table in ('skills', 'skill_revisions'):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column('description', sa.String(length=1024), nullable=False,
                                       server_default=''))
    with op.batch_alter_table('agents') as batch:
        batch.add_column(sa.Column('deleted_at', sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('agents') as batch:
        batch.drop_column('deleted_at')
    for table in ('skill_revisions', 'skills'):
        with op.batch_alter_table(table) as batch:
            batch.drop_column('description')
