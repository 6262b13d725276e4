"""A skill's frontmatter editor: the YAML of its SKILL.md, every key, with the lint of the
agent's clients beside it (`store.save_frontmatter` owns the save).

The skill's editor opens it in a dialog (the fragment, `?dialog=1`); without JavaScript
its link is the page. A save is a new version of the skill from the version shown: a stale
page answers 409, refused YAML 422, each the page with the author's text kept; a save goes
back to the skill's editor, whose fields now read as the text says.
"""

from __future__ import annotations

from flask import Blueprint, Response, request, url_for

from webapp import store
from webapp.schema.db import get_session
from webapp.views.skill_lint import skill_lint

from .access import requires
from .forms import whole_number
from .responses import done, page_or_fragment

bp = Blueprint("frontmatter", __name__)


@bp.get("/agents/<agent>/skills/<path:d_tag>/frontmatter")
@requires("viewer")
def show(agent: str, d_tag: str) -> Response:
    """The skill's SKILL.md frontmatter in an editor, its lint beside it (`?dialog=1`: the
    fragment for the editor page's dialog, closed by a button instead of a link back)."""
    return frontmatter_response(agent, d_tag, in_dialog=request.args.get("dialog") == "1")


@bp.post("/agents/<agent>/skills/<path:d_tag>/frontmatter")
@requires("author")
def save(agent: str, d_tag: str) -> Response:
    """Save the frontmatter as edited: a new version of the skill."""
    text = request.form.get("frontmatter", "")
    version = whole_number(request.form.get("version"), "version")
    try:
        store.save_frontmatter(get_session(), agent, d_tag, text, expected_version=version)
    except store.ValidationError as exc:
        return frontmatter_response(agent, d_tag, 422, problems=exc.problems, mine=text)
    except store.Conflict:
        return frontmatter_response(agent, d_tag, 409, stale=True, mine=text)
    return done(f"Saved the frontmatter of {d_tag}.",
                url_for("editor.edit", agent=agent, d_tag=d_tag))


def frontmatter_response(agent: str, d_tag: str, status: int = 200, *,
                         problems: list[tuple[str, str]] | None = None, stale: bool = False,
                         mine: str | None = None, in_dialog: bool = False) -> Response:
    """The frontmatter page (or its fragment), the author's text kept when not saved."""
    session = get_session()
    row = store.get_skill(session, agent, d_tag)
    lint = skill_lint(store.skill_of(row), store.folder_facts(session, agent, d_tag))
    return page_or_fragment(
        "frontmatter.html", "_frontmatter.html", status, agent=agent, current=d_tag,
        skill=row, text=store.frontmatter_text(row) if mine is None else mine,
        lint=lint, problems=problems or [], stale=stale, in_dialog=in_dialog)
