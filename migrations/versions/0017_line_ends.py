"""Each line's end of a SKILL.md that mixed them (`agentskills.line_ends`), kept on a skill and
its revisions so the file is written back byte for byte.

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


def upgrade() -> None:
    # A literal server default: SQLite adds the column in place. A skill read before kept
    # no line ends of its own: it is written back with LF, or CRLF throughout, as it was.
    for table in ('skills', 'skill_revisions'):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column('line_ends', sa.Text(), nullable=False,
                                       server_default=''))


def downgrade() -> None:
    for table in ('skill_revisions', 'skills'):
        with op.batch_alter_table(table) as batch:
            batch.drop_column('line_ends')
