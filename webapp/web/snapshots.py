"""Reading published snapshots: a snapshot's page (who published it and why, its labels,
its skills, every scenario's compiled context), and two snapshots, or a snapshot and the
draft, compared.

Nothing here writes; publishing is `publish`'s. What the pages show is built in
`views.snapshots`. A page holds the first few scenarios and skills; the others are panels
that load when scrolled to (`scenario`, `compare_scenario`, `compare_skill`, each also a
page of its own without JavaScript), and a long document's folds load a page of lines at a
time (`lines`).
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, Response, abort, request, url_for

from webapp import store
from webapp.pipeline import Workspace, assemble
from webapp.schema.db import get_session
from webapp.views.document_window import VIEWS, DocumentWindow, Fold, parse_lines
from webapp.views.publish import scenario_change
from webapp.views.snapshots import (
    compare_page,
    default_refs,
    known_scenario,
    known_skills,
    scenario_context,
    skill_diff,
    snapshot_page,
)

from .access import requires
from .responses import download_name, page_or_fragment
from .snapshot_files import folder_zip, published_skill

bp = Blueprint("snapshots", __name__)


@bp.get("/agents/<agent>/snapshots/<id:number>")
@requires("viewer")
def show(agent: str, number: int) -> Response:
    """Snapshot `number`: who published it and why, its labels, skills and contexts."""
    view = snapshot_page(get_session(), agent, number)
    return page_or_fragment("snapshot.html", "_snapshot.html", agent=agent, view=view,
                            fold_urls=lambda name: fold_url(agent, number, name))


@bp.get("/agents/<agent>/snapshots/<id:number>/scenario")
@requires("viewer")
def scenario(agent: str, number: int) -> Response:
    """One scenario's compiled context in snapshot `number` (`?name=`; none for the
    default inputs): a panel the snapshot's page loads when it is shown."""
    snapshot = store.get_snapshot(get_session(), agent, number)
    workspace = store.snapshot_workspace(snapshot)
    name = scenario_name(workspace, number)
    return page_or_fragment(
        "snapshot_scenario.html", "_scenario_context.html", agent=agent, number=number,
        scenario=scenario_context(workspace, name, snapshot.tests),
        panel_url=request.full_path, fold_url=fold_url(agent, number, name))


@bp.get("/agents/<agent>/snapshots/<id:number>/lines")
@requires("viewer")
def lines(agent: str, number: int) -> Response:
    """Lines of a scenario's document that were folded (`name`, `view`, `lines`)."""
    view, span = request.args.get("view"), parse_lines(request.args.get("lines"))
    if view not in VIEWS or span is None:
        abort(422, description="view: rendered or source; lines: like 121-340")
    workspace = store.published_workspace(get_session(), agent, number)
    name = scenario_name(workspace, number)
    window = DocumentWindow(assemble(workspace, name), None, None)
    return page_or_fragment("snapshot_lines.html", "_preview_lines.html", agent=agent,
                            number=number, name=name, view=view, span=span,
                            parts=window.expand(view, *span),
                            fold_url=fold_url(agent, number, name), fold_method="get")


@bp.get("/agents/<agent>/snapshots/<ref>/skills/<path:d_tag>/folder.zip")
@requires("viewer")
def skill_zip(agent: str, ref: str, d_tag: str) -> Response:
    """Skill `d_tag`'s folder as snapshot `ref` (a number, a label or `latest`) publishes
    it, zipped."""
    session = get_session()
    row = store.get_agent(session, agent)
    found = store.resolve(session, row.id, ref)
    published = published_skill(session, row.id, found, d_tag)
    snapshot = store.get_snapshot(session, row, found.number)
    filename, data = folder_zip(session, row.id, published, snapshot.published_at)
    response = Response(data, mimetype="application/zip")
    response.headers.set("Content-Disposition", "attachment", filename=download_name(filename))
    return response


@bp.get("/agents/<agent>/snapshots/compare")
@requires("viewer")
def compare(agent: str) -> Response:
    """Two sides compared (`a`, `b`: a snapshot's number, a label, `latest` or `draft`;
    by default the latest snapshot and the draft)."""
    session = get_session()
    a, b = default_refs(session, agent, request.args.get("a"), request.args.get("b"))
    return page_or_fragment("snapshot_compare.html", "_snapshot_compare.html", agent=agent,
                            view=compare_page(session, agent, a, b))


@bp.get("/agents/<agent>/snapshots/compare/scenario")
@requires("viewer")
def compare_scenario(agent: str) -> Response:
    """One scenario's diffs between the two sides (`a`, `b`, `name`)."""
    a, b = sides(agent)
    change = scenario_change(a.workspace, b.workspace, request.args.get("name"))
    if change is None:
        abort(404, description="Neither side has that scenario.")
    return page_or_fragment("snapshot_compare_scenario.html", "_changes_scenario.html",
                            agent=agent, a=a, b=b, scenario=change, sides=(a.title, b.title))


@bp.get("/agents/<agent>/snapshots/compare/skill")
@requires("viewer")
def compare_skill(agent: str) -> Response:
    """One skill's changes between the two sides (`a`, `b`, `d_tag`)."""
    a, b = sides(agent)
    change = store.skill_difference(a, b, request.args.get("d_tag", ""))
    if change is None:
        abort(404, description="That skill is the same on both sides, or on neither.")
    return page_or_fragment("snapshot_compare_skill.html", "_snapshot_skill_diff.html",
                            agent=agent, a=a, b=b,
                            skill=skill_diff(change, known_skills(get_session(), agent)),
                            panel_url=request.full_path)


def sides(agent: str) -> tuple[store.Side, store.Side]:
    """The two sides a panel's address names (`a`, `b`, as the comparison's)."""
    session = get_session()
    a, b = default_refs(session, agent, request.args.get("a"), request.args.get("b"))
    return store.read_side(session, agent, a), store.read_side(session, agent, b)


def scenario_name(workspace: Workspace, number: int) -> str | None:
    """The scenario of snapshot `number` the address names (`name`; none: the default
    inputs, for a workspace without scenarios), else a 404."""
    name = request.args.get("name")
    if not known_scenario(workspace, name):
        abort(404, description=f"Snapshot #{number} has no scenario {name!r}.")
    return name


def fold_url(agent: str, number: int, name: str | None) -> Callable[[Fold], str]:
    """`url(fold)`: the address of a fold's lines of scenario `name` in snapshot `number`."""
    return lambda fold: url_for("snapshots.lines", agent=agent, number=number, name=name,
                                view=fold.view, lines=fold.lines)
