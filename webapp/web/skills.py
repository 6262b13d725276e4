"""Making skills: the New skill form (its d_tag checked as typed), and Duplicate.

The store decides what a skill may be (`store.create_skill`, `store.d_tag_problem`);
these routes read the form and open the editor on the new skill.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from flask import Blueprint, Response, request, url_for

from webapp import store
from webapp.pipeline import Skill
from webapp.schema.db import get_session
from webapp.views.skill_starters import STARTERS, STARTERS_BY_KEY

from .access import requires
from .forms import parse_skill_form
from .responses import done, page_or_fragment

bp = Blueprint("skills", __name__)

#: How many numbered names `duplicate` tries (`chat-copy`, `chat-copy-2`, ...).
COPY_TRIES = 100


@bp.get("/agents/<agent>/new-skill")
@requires("author")
def new(agent: str) -> Response:
    """The New skill form: d_tag, name, description, layer, triggers, a starting point."""
    row = store.get_agent(get_session(), agent)
    return form_response(row.name, Skill(d_tag="", content=""), "roles")


@bp.post("/agents/<agent>/new-skill/check")
@requires("viewer")
def check(agent: str) -> Response:
    """Whether the typed d_tag can name a new skill (an htmx fragment beside the field)."""
    d_tag = request.form.get("d_tag", "")
    problem = store.d_tag_problem(get_session(), agent, d_tag) if d_tag else None
    # Asked by htmx as the author types; without JavaScript the form is checked on submit.
    return page_or_fragment("_d_tag_check.html", "_d_tag_check.html", agent=agent, d_tag=d_tag,
                            problem=problem)


@bp.post("/agents/<agent>/new-skill")
@requires("author")
def create(agent: str) -> Response:
    """Create the skill at the end of the adoption order and open it in the editor."""
    session = get_session()
    row = store.get_agent(session, agent)
    starter = STARTERS_BY_KEY.get(request.form.get("starter", ""), STARTERS[0])
    form = parse_skill_form(request.form, Skill(d_tag="", content="", layer=starter.layer),
                            from_form=True)
    skill = dataclasses.replace(form.draft, enabled=True,
                                content=starter.content(form.draft.d_tag, form.draft.name))
    errors = dict(form.errors)
    if not errors:
        try:
            store.create_skill(session, row, skill.d_tag, content=skill.content,
                               name=skill.name, layer=skill.layer, triggers=skill.triggers,
                               description=skill.description, note="created")
        except (store.ValidationError, store.AlreadyExists) as exc:
            errors.update(dict(exc.problems))
        else:
            return done(f"Created the skill {skill.d_tag}.",
                        url_for("editor.edit", agent=row.name, d_tag=skill.d_tag))
    return form_response(row.name, skill, starter.key, errors, 422)


@bp.post("/agents/<agent>/skills/<path:d_tag>/duplicate")
@requires("author")
def duplicate(agent: str, d_tag: str) -> Response:
    """Copy the saved skill, its files too, as `<d_tag>-copy` (numbered if taken), last in
    the order."""
    session = get_session()
    skill = store.skill_of(store.get_skill(session, agent, d_tag))
    name = free_copy_name(agent, d_tag)
    store.create_skill(session, agent, name, content=skill.content,
                       name=f"{skill.name} (copy)" if skill.name else "", layer=skill.layer,
                       triggers=skill.triggers, enabled=skill.enabled,
                       description=skill.description, note=f"duplicated from {d_tag}",
                       folder_of=d_tag)
    return done(f"Duplicated {d_tag} as {name}: the copy is last in the adoption order.",
                url_for("editor.edit", agent=agent, d_tag=name))


def free_copy_name(agent: str, d_tag: str) -> str:
    """The first of `<d_tag>-copy`, `<d_tag>-copy-2`, ... no skill of the agent has."""
    for n in range(1, COPY_TRIES + 1):
        name = f"{d_tag}-copy" if n == 1 else f"{d_tag}-copy-{n}"
        if store.d_tag_problem(get_session(), agent, name) is None:
            return name
    raise store.ValidationError([("d_tag", f"no free name for a copy of {d_tag!r}: "
                                           "rename or delete earlier copies")])


def form_response(agent: str, skill: Skill, starter: str, errors: dict[str, str] | None = None,
                  status: int = 200) -> Response:
    """The New skill form with what was typed and what is wrong with it."""
    workspace = store.load_workspace(get_session(), agent)
    context: dict[str, Any] = {"agent": agent, "draft": skill, "errors": errors or {},
                               "starters": STARTERS, "starter": starter,
                               "known_triggers": workspace.triggers}
    return page_or_fragment("skill_new.html", "_skill_new.html", status, **context)
