"""Context tests: a scenario's expectations, whether an agent runs the built-in ones, and
the test results a snapshot keeps.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0013'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('scenarios') as batch:
        batch.add_column(sa.Column('expect', sa.JSON(), nullable=True))
    with op.batch_alter_table('agents') as batch:
        batch.add_column(sa.Column('builtin_tests', sa.Boolean(), nullable=False,
                                   server_default='1'))  # a literal: SQLite adds it in place
    with op.batch_alter_table('published_snapshots') as batch:
        batch.add_column(sa.Column('tests', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('published_snapshots') as batch:
        batch.drop_column('tests')
    with op.batch_alter_table('agents') as batch:
        batch.drop_column('builtin_tests')
    with op.batch_alter_table('scenarios') as batch:
        batch.drop_column('expect')
