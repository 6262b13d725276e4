"""Agent Skills folders: a skill's SKILL.md head and files (with every revision), the files'
bytes, longer descriptions, and the clients an agent's skills are written for.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0015'
down_revision: str | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Literal server defaults: SQLite adds such a column in place (an expression would make it
# copy the table, and the copy's drop would cascade the revisions away).
_FOLDER_COLUMNS = (
    ('frontmatter', sa.Text(), ''),
    ('crlf', sa.Boolean(), '0'),
    ('files', sa.JSON(), '[]'),
)


def upgrade() -> None:
    for table in ('skills', 'skill_revisions'):
        with op.batch_alter_table(table) as batch:
            for name, type_, default in _FOLDER_COLUMNS:
                batch.add_column(sa.Column(name, type_, nullable=False, server_default=default))
        # SQLite ignores a VARCHAR's length (and altering it would copy the table): the
        # models declare the old length there (`skill_columns.DESCRIPTION_LENGTH`).
        if op.get_bind().dialect.name != 'sqlite':
            op.alter_column(table, 'description', type_=sa.String(8192),
                            existing_type=sa.String(1024), existing_nullable=False,
                            existing_server_default='')
    with op.batch_alter_table('agents') as batch:
        batch.add_column(sa.Column('skill_clients', sa.JSON(), nullable=False,
                                   server_default='["agentskills"]'))
    op.create_table(
        'skill_blobs',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=False),
        sa.Column('sha256', sa.String(length=64), nullable=False),
        sa.Column('size', sa.Integer(), nullable=False),
        sa.Column('data', sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(['agent_id'], ['agents.id'],
                                name=op.f('fk_skill_blobs_agent_id_agents'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_skill_blobs')),
        sa.UniqueConstraint('agent_id', 'sha256', name=op.f('uq_skill_blobs_agent_id_sha256')),
    )
    op.create_index(op.f('ix_skill_blobs_agent_id'), 'skill_blobs', ['agent_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_skill_blobs_agent_id'), table_name='skill_blobs')
    op.drop_table('skill_blobs')
    with op.batch_alter_table('agents') as batch:
        batch.drop_column('skill_clients')
    for table in ('skill_revisions', 'skills'):
        if op.get_bind().dialect.name != 'sqlite':
            op.alter_column(table, 'description', type_=sa.String(1024),
                            existing_type=sa.String(8192), existing_nullable=False,
                            existing_server_default='')
        with op.batch_alter_table(table) as batch:
            for name, _, _ in reversed(_FOLDER_COLUMNS):
                batch.drop_column(name)
