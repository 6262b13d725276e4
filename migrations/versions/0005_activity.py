"""Who did what: the append-only activity record, and the author of each revision and
context-log entry.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('activity',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('actor', sa.String(length=200), nullable=True),
        sa.Column('agent_name', sa.String(length=200), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=True),
        sa.Column('kind', sa.String(length=40), nullable=False),
        sa.Column('subject', sa.String(length=200), nullable=False),
        sa.Column('detail', sa.String(length=300), nullable=False),
        # SET NULL, not CASCADE: purging an agent keeps the record of what was done to it.
        sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], ondelete='SET NULL',
                                name=op.f('fk_activity_agent_id_agents')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_activity'))
    )
    for column in ('actor', 'agent_name', 'agent_id', 'kind'):
        op.create_index(op.f(f'ix_activity_{column}'), 'activity', [column])
    # Rows written before this migration have no author: they show as the local mode's.
    for table in ('skill_revisions', 'context_log'):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column('author', sa.String(length=200), nullable=True))


def downgrade() -> None:
    for table in ('context_log', 'skill_revisions'):
        with op.batch_alter_table(table) as batch:
            batch.drop_column('author')
    for column in ('kind', 'agent_id', 'agent_name', 'actor'):
        op.drop_index(op.f(f'ix_activity_{column}'), table_name='activity')
    op.drop_table('activity')
