"""Labels: a name (`production`, ...) pointing at one published snapshot of an agent.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0010'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'labels',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=64), nullable=False),
        sa.Column('snapshot_id', sa.Integer(), nullable=False),
        sa.Column('moved_by', sa.String(length=200), nullable=True),
        sa.Column('moved_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], ondelete='CASCADE',
                                name=op.f('fk_labels_agent_id_agents')),
        sa.ForeignKeyConstraint(['snapshot_id'], ['published_snapshots.id'], ondelete='CASCADE',
                                name=op.f('fk_labels_snapshot_id_published_snapshots')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_labels')),
        sa.UniqueConstraint('agent_id', 'name', name=op.f('uq_labels_agent_id_name')),
    )
    op.create_index(op.f('ix_labels_agent_id'), 'labels', ['agent_id'])
    op.create_index(op.f('ix_labels_snapshot_id'), 'labels', ['snapshot_id'])


def downgrade() -> None:
    op.drop_index(op.f('ix_labels_snapshot_id'), table_name='labels')
    op.drop_index(op.f('ix_labels_agent_id'), table_name='labels')
    op.drop_table('labels')
