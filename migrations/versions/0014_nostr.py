"""Skills on Nostr: an agent's public key, relays and event kinds, and the author of a
skill adopted from another key.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0014'
down_revision: str | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('agents') as batch:
        batch.add_column(sa.Column('nostr_pubkey', sa.String(length=64), nullable=True))
        batch.add_column(sa.Column('nostr_relays', sa.JSON(), nullable=True))
        batch.add_column(sa.Column('nostr_kinds', sa.JSON(), nullable=True))
    with op.batch_alter_table('skills') as batch:
        batch.add_column(sa.Column('nostr_author', sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('skills') as batch:
        batch.drop_column('nostr_author')
    with op.batch_alter_table('agents') as batch:
        batch.drop_column('nostr_kinds')
        batch.drop_column('nostr_relays')
        batch.drop_column('nostr_pubkey')
