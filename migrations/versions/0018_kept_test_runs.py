"""Context test runs kept by the code, the agent, the workspace and the scenario they ran on
(`store.test_runs`), so a process's first Changes page or Tests tab reads a run another
process made instead of running every scenario again.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0018'
down_revision: str | None = '0017'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'kept_test_runs',
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=False),
        sa.Column('made_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('results', sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], ondelete='CASCADE',
                                name=op.f('fk_kept_test_runs_agent_id_agents')),
        sa.PrimaryKeyConstraint('key', name=op.f('pk_kept_test_runs')),
    )
    op.create_index(op.f('ix_kept_test_runs_agent_id'), 'kept_test_runs', ['agent_id'])
    op.create_index(op.f('ix_kept_test_runs_made_at'), 'kept_test_runs', ['made_at'])


def downgrade() -> None:
    op.drop_index(op.f('ix_kept_test_runs_made_at'), table_name='kept_test_runs')
    op.drop_index(op.f('ix_kept_test_runs_agent_id'), table_name='kept_test_runs')
    op.drop_table('kept_test_runs')
