"""Agents name the model their context is meant for and its context window.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('agents') as batch:
        batch.add_column(sa.Column('model', sa.String(length=100), nullable=False,
                                   server_default='gpt-4o'))
        batch.add_column(sa.Column('context_window', sa.Integer(), nullable=False,
                                   server_default='0'))


def downgrade() -> None:
    with op.batch_alter_table('agents') as batch:
        batch.drop_column('context_window')
        batch.drop_column('model')
