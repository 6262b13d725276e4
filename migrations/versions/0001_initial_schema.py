"""The initial schema: agents, skills and their revisions, tools, variables, scenarios, context log.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('agents',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('title', sa.Text(), nullable=False),
        sa.Column('message_mode', sa.String(length=20), nullable=False),
        sa.Column('max_array_items', sa.Integer(), nullable=False),
        sa.Column('history_labels', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_agents')),
        sa.UniqueConstraint('name', name=op.f('uq_agents_name'))
    )
    op.create_table('context_log',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=False),
        sa.Column('scenario', sa.String(length=200), nullable=True),
        sa.Column('trigger', sa.String(length=200), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('document', sa.Text(), nullable=False),
        sa.Column('messages', sa.JSON(), nullable=False),
        sa.Column('diagnostics', sa.JSON(), nullable=False),
        sa.Column('summary', sa.Text(), nullable=False),
        sa.Column('error_count', sa.Integer(), nullable=False),
        sa.Column('warning_count', sa.Integer(), nullable=False),
        sa.Column('info_count', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], ondelete='CASCADE',
                                name=op.f('fk_context_log_agent_id_agents')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_context_log'))
    )
    op.create_index(op.f('ix_context_log_agent_id'), 'context_log', ['agent_id'])

    op.create_table('scenarios',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('trigger', sa.String(length=200), nullable=False),
        sa.Column('message', sa.Text(), nullable=False),
        sa.Column('history', sa.JSON(), nullable=False),
        sa.Column('event', sa.JSON(), nullable=True),
        sa.Column('provider', sa.String(length=200), nullable=True),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], ondelete='CASCADE',
                                name=op.f('fk_scenarios_agent_id_agents')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_scenarios')),
        sa.UniqueConstraint('agent_id', 'name', name=op.f('uq_scenarios_agent_id_name'))
    )
    op.create_index(op.f('ix_scenarios_agent_id'), 'scenarios', ['agent_id'])

    op.create_table('skills',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=False),
        sa.Column('d_tag', sa.String(length=200), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('layer', sa.Integer(), nullable=False),
        sa.Column('triggers', sa.JSON(), nullable=False),
        sa.Column('enabled', sa.Boolean(), nullable=False),
        sa.Column('content', sa.Text(), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('deleted_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], ondelete='CASCADE',
                                name=op.f('fk_skills_agent_id_agents')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_skills')),
        sa.UniqueConstraint('agent_id', 'd_tag', name=op.f('uq_skills_agent_id_d_tag'))
    )
    op.create_index(op.f('ix_skills_agent_id'), 'skills', ['agent_id'])

    op.create_table('tools',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('description', sa.Text(), nullable=False),
        sa.Column('result', sa.JSON(), nullable=True),
        sa.Column('results_by_args', sa.JSON(), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], ondelete='CASCADE',
                                name=op.f('fk_tools_agent_id_agents')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_tools')),
        sa.UniqueConstraint('agent_id', 'name', name=op.f('uq_tools_agent_id_name'))
    )
    op.create_index(op.f('ix_tools_agent_id'), 'tools', ['agent_id'])

    op.create_table('variables',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('tool', sa.String(length=200), nullable=False),
        sa.Column('args', sa.JSON(), nullable=True),
        sa.Column('result_field', sa.String(length=200), nullable=False),
        sa.Column('path', sa.Text(), nullable=True),
        sa.Column('format', sa.String(length=200), nullable=True),
        sa.Column('limit', sa.Integer(), nullable=True),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], ondelete='CASCADE',
                                name=op.f('fk_variables_agent_id_agents')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_variables')),
        sa.UniqueConstraint('agent_id', 'name', name=op.f('uq_variables_agent_id_name'))
    )
    op.create_index(op.f('ix_variables_agent_id'), 'variables', ['agent_id'])

    op.create_table('skill_revisions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('skill_id', sa.Integer(), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('d_tag', sa.String(length=200), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('layer', sa.Integer(), nullable=False),
        sa.Column('triggers', sa.JSON(), nullable=False),
        sa.Column('enabled', sa.Boolean(), nullable=False),
        sa.Column('content', sa.Text(), nullable=False),
        sa.Column('saved_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('note', sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(['skill_id'], ['skills.id'], ondelete='CASCADE',
                                name=op.f('fk_skill_revisions_skill_id_skills')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_skill_revisions')),
        sa.UniqueConstraint('skill_id', 'version', name=op.f('uq_skill_revisions_skill_id_version'))
    )
    op.create_index(op.f('ix_skill_revisions_skill_id'), 'skill_revisions', ['skill_id'])


def downgrade() -> None:
    op.drop_index(op.f('ix_skill_revisions_skill_id'), table_name='skill_revisions')
    op.drop_table('skill_revisions')
    op.drop_index(op.f('ix_variables_agent_id'), table_name='variables')
    op.drop_table('variables')
    op.drop_index(op.f('ix_tools_agent_id'), table_name='tools')
    op.drop_table('tools')
    op.drop_index(op.f('ix_skills_agent_id'), table_name='skills')
    op.drop_table('skills')
    op.drop_index(op.f('ix_scenarios_agent_id'), table_name='scenarios')
    op.drop_table('scenarios')
    op.drop_index(op.f('ix_context_log_agent_id'), table_name='context_log')
    op.drop_table('context_log')
    op.drop_table('agents')
