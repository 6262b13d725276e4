"""Items an import replaced or dropped go to a trash of their own; a skill whose d_tag
ends in one of a skill's sub-routes (`notes/enabled`) is renamed, so its pages can be
addressed again.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'trashed_items',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=False),
        sa.Column('section', sa.String(length=20), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('fields', sa.JSON(), nullable=False),
        sa.Column('deleted_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('note', sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(['agent_id'], ['agents.id'], ondelete='CASCADE',
                                name=op.f('fk_trashed_items_agent_id_agents')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_trashed_items')),
    )
    op.create_index(op.f('ix_trashed_items_agent_id'), 'trashed_items', ['agent_id'])
    _rename_reserved_d_tags()


def downgrade() -> None:
    op.drop_index(op.f('ix_trashed_items_agent_id'), table_name='trashed_items')
    op.drop_table('trashed_items')


def _rename_reserved_d_tags() -> None:
    """Each skill whose d_tag the rules now refuse (`rules.d_tag_route_problem`) becomes
    `<d_tag>-skill` (numbered if taken) as a new version, with a revision saying why; the
    `{{d_tag}}` references of the agent's other skills follow it, as a rename does."""
    # Read here, when the migration runs: the rule and the placeholder rewrite are the
    # app's own, so what is renamed is exactly what the app refuses.
    from webapp.pipeline import rename_placeholders
    from webapp.store.rules import d_tag_route_problem

    bind = op.get_bind()
    meta = sa.MetaData()
    skills = sa.Table('skills', meta, autoload_with=bind)
    revisions = sa.Table('skill_revisions', meta, autoload_with=bind)
    fields = ('d_tag', 'name', 'description', 'layer', 'triggers', 'enabled', 'content')
    rows = [dict(r._mapping) for r in bind.execute(sa.select(skills))]
    renamed = [r for r in rows if d_tag_route_problem(r['d_tag'])]
    now = datetime.now(UTC)
    for row in renamed:
        taken = {r['d_tag'] for r in rows if r['agent_id'] == row['agent_id']}
        new, n = f"{row['d_tag']}-skill", 1
        while new in taken or d_tag_route_problem(new):
            n += 1
            new = f"{row['d_tag']}-skill-{n}"
        old = row['d_tag']
        changes = {row['id']: {'d_tag': new,
                               'content': rename_placeholders(row['content'], old, new)}}
        for other in rows:
            if other['agent_id'] == row['agent_id'] and other['id'] != row['id']:
                content = rename_placeholders(other['content'], old, new)
                if content != other['content']:
                    changes[other['id']] = {'content': content}
        note = (f"renamed from {old}: a d_tag ending in '{old.rsplit('/', 1)[-1]}' "
                "is the address of another skill's page")
        for skill_id, change in changes.items():
            current = next(r for r in rows if r['id'] == skill_id)
            current.update(change, version=current['version'] + 1, updated_at=now)
            bind.execute(sa.update(skills).where(skills.c.id == skill_id).values(
                **change, version=current['version'], updated_at=now))
            bind.execute(sa.insert(revisions).values(
                skill_id=skill_id, version=current['version'], saved_at=now, author=None,
                note=note if skill_id == row['id'] else
                f"reference {{{{{old}}}}} renamed to {{{{{new}}}}}",
                **{key: current[key] for key in fields}))
