"""Each line's end of a SKILL.md that mixed them (`agentskills.line_ends`), kept on a skill and
its revisions so the file is written back byte for byte; and how each client lists a skill
in its catalogue (`store.convert.listing_of`), kept on the skill's row so the editor's
Problems tab sums the other skills' listings without reading their heads.

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0017'
down_revision: str | None = '0016'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SKILLS = sa.table(
    'skills', sa.column('id', sa.Integer()), sa.column('d_tag', sa.String()),
    sa.column('name', sa.String()), sa.column('description', sa.String()),
    sa.column('layer', sa.Integer()), sa.column('triggers', sa.JSON()),
    sa.column('enabled', sa.Boolean()), sa.column('content', sa.Text()),
    sa.column('frontmatter', sa.Text()), sa.column('listing', sa.JSON()))


def upgrade() -> None:
    # A literal server default: SQLite adds the column in place. A skill read before kept
    # no line ends of its own: it is written back with LF, or CRLF throughout, as it was.
    for table in ('skills', 'skill_revisions'):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column('line_ends', sa.Text(), nullable=False,
                                       server_default=''))
    with op.batch_alter_table('skills') as batch:
        batch.add_column(sa.Column('listing', sa.JSON(), nullable=False, server_default='{}'))
    # Every existing skill's listing, as a write computes it (a row of the select reads as a
    # skill row does).
    from webapp.store.convert import listing_of

    bind = op.get_bind()
    for row in bind.execute(sa.select(_SKILLS)).all():
        bind.execute(sa.update(_SKILLS).where(_SKILLS.c.id == row.id)
                     .values(listing=listing_of(row)))


def downgrade() -> None:
    with op.batch_alter_table('skills') as batch:
        batch.drop_column('listing')
    for table in ('skill_revisions', 'skills'):
        with op.batch_alter_table(table) as batch:
            batch.drop_column('line_ends')
