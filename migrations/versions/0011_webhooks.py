"""Webhooks: the URLs told of an agent's publishes, their outbox and their tries.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0011'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'webhooks',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=False),
        sa.Column('url', sa.String(length=2000), nullable=False),
        sa.Column('events', sa.String(length=100), nullable=False),
        sa.Column('secret', sa.String(length=100), nullable=False),
        sa.Column('active', sa.Boolean(), nullable=False),
        sa.Column('created_by', sa.String(length=200), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], ondelete='CASCADE',
                                name=op.f('fk_webhooks_agent_id_agents')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_webhooks')),
    )
    op.create_index(op.f('ix_webhooks_agent_id'), 'webhooks', ['agent_id'])
    op.create_table(
        'webhook_messages',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('webhook_id', sa.Integer(), nullable=False),
        sa.Column('msg_id', sa.String(length=40), nullable=False),
        sa.Column('event', sa.String(length=40), nullable=False),
        sa.Column('payload', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('status', sa.String(length=20), nullable=False),
        sa.Column('tries', sa.Integer(), nullable=False),
        sa.Column('due_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['webhook_id'], ['webhooks.id'], ondelete='CASCADE',
                                name=op.f('fk_webhook_messages_webhook_id_webhooks')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_messages')),
        sa.UniqueConstraint('msg_id', name=op.f('uq_webhook_messages_msg_id')),
    )
    op.create_index(op.f('ix_webhook_messages_webhook_id'), 'webhook_messages', ['webhook_id'])
    op.create_index('ix_webhook_messages_status_due_at', 'webhook_messages', ['status', 'due_at'])
    op.create_table(
        'webhook_tries',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('message_id', sa.Integer(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('status_code', sa.Integer(), nullable=True),
        sa.Column('ok', sa.Boolean(), nullable=False),
        sa.Column('detail', sa.Text(), nullable=False),
        sa.Column('milliseconds', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['message_id'], ['webhook_messages.id'], ondelete='CASCADE',
                                name=op.f('fk_webhook_tries_message_id_webhook_messages')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_tries')),
    )
    op.create_index(op.f('ix_webhook_tries_message_id'), 'webhook_tries', ['message_id'])


def downgrade() -> None:
    op.drop_index(op.f('ix_webhook_tries_message_id'), table_name='webhook_tries')
    op.drop_table('webhook_tries')
    op.drop_index('ix_webhook_messages_status_due_at', table_name='webhook_messages')
    op.drop_index(op.f('ix_webhook_messages_webhook_id'), table_name='webhook_messages')
    op.drop_table('webhook_messages')
    op.drop_index(op.f('ix_webhooks_agent_id'), table_name='webhooks')
    op.drop_table('webhooks')
