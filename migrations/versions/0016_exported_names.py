"""The name each skill's SKILL.md exports, kept on the skill's row (`store.convert.exported_of`)
so that a keystroke's lint reads the other skills' names instead of parsing their heads.

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0016'
down_revision: str | None = '0015'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SKILLS = sa.table(
    'skills', sa.column('id', sa.Integer()), sa.column('d_tag', sa.String()),
    sa.column('name', sa.String()), sa.column('description', sa.String()),
    sa.column('layer', sa.Integer()), sa.column('triggers', sa.JSON()),
    sa.column('enabled', sa.Boolean()), sa.column('content', sa.Text()),
    sa.column('frontmatter', sa.Text()), sa.column('exported_name', sa.Text()))


def upgrade() -> None:
    # A literal server default: SQLite adds the column in place.
    with op.batch_alter_table('skills') as batch:
        batch.add_column(sa.Column('exported_name', sa.Text(), nullable=False,
                                   server_default=''))
    # Every existing skill's name, as a write computes it (a row of the select reads as a
    # skill row does).
    from webapp.store.convert import exported_of

    bind = op.get_bind()
    for row in bind.execute(sa.select(_SKILLS)).all():
        bind.execute(sa.update(_SKILLS).where(_SKILLS.c.id == row.id)
                     .values(exported_name=exported_of(row)))


def downgrade() -> None:
    with op.batch_alter_table('skills') as batch:
        batch.drop_column('exported_name')
