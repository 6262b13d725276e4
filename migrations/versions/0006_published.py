"""Published snapshots of an agent's workspace; context-log entries say what they were
assembled from.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'published_snapshots',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('digest', sa.String(length=64), nullable=False),
        sa.Column('bundle', sa.Text(), nullable=False),
        sa.Column('skill_versions', sa.JSON(), nullable=False),
        sa.Column('note', sa.Text(), nullable=False),
        sa.Column('published_by', sa.String(length=200), nullable=True),
        sa.Column('published_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('republished', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], ondelete='CASCADE',
                                name=op.f('fk_published_snapshots_agent_id_agents')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_published_snapshots')),
        sa.UniqueConstraint('agent_id', 'number',
                            name=op.f('uq_published_snapshots_agent_id_number')),
    )
    op.create_index(op.f('ix_published_snapshots_agent_id'), 'published_snapshots',
                    ['agent_id'], unique=False)
    # Every entry logged so far was assembled from the workspace as it was: a draft.
    with op.batch_alter_table('context_log') as batch:
        batch.add_column(sa.Column('source', sa.String(length=40), nullable=False,
                                   server_default='draft'))


def downgrade() -> None:
    with op.batch_alter_table('context_log') as batch:
        batch.drop_column('source')
    op.drop_index(op.f('ix_published_snapshots_agent_id'), table_name='published_snapshots')
    op.drop_table('published_snapshots')
