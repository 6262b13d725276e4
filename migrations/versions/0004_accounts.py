"""Accounts (users with a role) and the failed sign-ins that throttle guessing.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'users',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('username', sa.String(length=40), nullable=False),
        sa.Column('display_name', sa.String(length=200), nullable=False),
        sa.Column('role', sa.String(length=20), nullable=False),
        sa.Column('password_hash', sa.String(length=255), nullable=False),
        sa.Column('disabled', sa.Boolean(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('last_login_at', sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_users')),
        sa.UniqueConstraint('username', name=op.f('uq_users_username')),
    )
    op.create_table(
        'failed_logins',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('username', sa.String(length=200), nullable=False),
        sa.Column('address', sa.String(length=64), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_failed_logins')),
    )
    op.create_index(op.f('ix_failed_logins_username'), 'failed_logins', ['username'])
    op.create_index(op.f('ix_failed_logins_address'), 'failed_logins', ['address'])
    op.create_index(op.f('ix_failed_logins_at'), 'failed_logins', ['at'])


def downgrade() -> None:
    op.drop_index(op.f('ix_failed_logins_at'), table_name='failed_logins')
    op.drop_index(op.f('ix_failed_logins_address'), table_name='failed_logins')
    op.drop_index(op.f('ix_failed_logins_username'), table_name='failed_logins')
    op.drop_table('failed_logins')
    op.drop_table('users')
