"""Review and publish: the Changes since published page, publishing, the rollback
(publishing an older snapshot again) and each snapshot's bundle.

The store owns snapshots and their rules (`store.publish`); what the page shows is built
in `publish_views`. Publishing is a plain form POST: a stale form (another reviewer
published meanwhile) gets the page again with 409, the note kept and the new latest
snapshot's diff to review.
"""

from __future__ import annotations

from collections.abc import Callable
from io import BytesIO

from flask import Blueprint, Response, g, request, send_file, url_for

from webapp import store
from webapp.schema.db import get_session
from webapp.store import context_tests
from webapp.views.document_window import Fold
from webapp.views.publish import changes_page, scenario_panel
from webapp.views.snapshots import first_review, known_scenario, scenario_context

from .access import requires
from .forms import whole_number
from .preview_links import fold_url, skill_link
from .responses import done, download_name, page_or_fragment

bp = Blueprint("publish", __name__)


@bp.get("/agents/<agent>/changes")
@requires("viewer")
def changes(agent: str) -> Response:
    """What changes for the agent when the workspace is published, and the snapshots."""
    return changes_response(agent)


@bp.get("/agents/<agent>/changes/scenario")
@requires("viewer")
def scenario(agent: str) -> Response:
    """One scenario's diffs, published → now (`?name=`; none for the default inputs);
    before the first publish, the scenario's whole context in the draft."""
    session, name = get_session(), request.args.get("name")
    if store.latest_snapshot(session, agent) is None:
        workspace = store.load_workspace(session, agent)
        if not known_scenario(workspace, name):
            raise store.NotFound(f"no scenario {name!r} in the workspace")
        context = scenario_context(workspace, name, context_tests.run(workspace, name).to_dict(),
                                   skill_link(agent, {}))
        return page_or_fragment("changes_context.html", "_scenario_context.html", agent=agent,
                                scenario=context, panel_url=request.full_path,
                                fold_url=draft_fold_urls(agent)(name))
    latest, change = scenario_panel(session, agent, name)
    return page_or_fragment("changes_scenario.html", "_changes_scenario.html", agent=agent,
                            latest=latest, scenario=change)


@bp.post("/agents/<agent>/changes/publish")
@requires("reviewer")
def publish(agent: str) -> Response:
    """Publish the workspace as it is as the next snapshot."""
    note = request.form.get("note", "")
    label = request.form.get("label", "").strip() or store.labels.PRODUCTION
    expected = whole_number(request.form.get("expected_latest"), "expected_latest")
    override = request.form.get("override") if "override" in request.form else None
    try:
        snapshot = store.publish(get_session(), agent, note, expected, label=label,
                                 override=override)
    except store.PublishConflict as exc:
        return changes_response(agent, 409, note=note, label=label, conflict=exc)
    except store.TestsFailing as exc:
        return changes_response(agent, 422, note=note, label=label, errors=exc.errors,
                                failing=exc.failures)
    except store.ValidationError as exc:
        return changes_response(agent, 422, note=note, label=label, errors=exc.errors)
    return done(f"Published snapshot #{snapshot.number}. The label {label} points at it.",
                url_for("publish.changes", agent=agent))


@bp.post("/agents/<agent>/snapshots/<id:number>/label")
@requires("reviewer")
def move_label(agent: str, number: int) -> Response:
    """Point a label (`production` by default) at snapshot `number`: to an older one, the
    rollback without a new number."""
    label = request.form.get("label", "").strip() or store.labels.PRODUCTION
    try:
        store.move_label(get_session(), agent, label, number)
    except store.ValidationError as exc:
        return changes_response(agent, 422, errors=exc.errors)
    return done(f"Moved {label} to snapshot #{number}.", url_for("publish.changes", agent=agent))


@bp.post("/agents/<agent>/snapshots/<id:number>/republish")
@requires("reviewer")
def republish(agent: str, number: int) -> Response:
    """The rollback: publish snapshot `number` again, as the next snapshot."""
    note = request.form.get("note", "")
    expected = whole_number(request.form.get("expected_latest"), "expected_latest")
    try:
        snapshot = store.republish(get_session(), agent, number, note, expected)
    except store.PublishConflict as exc:
        return changes_response(agent, 409, conflict=exc)
    except store.ValidationError as exc:
        return changes_response(agent, 422, errors=exc.errors)
    return done(f"Published snapshot #{number} again as #{snapshot.number}.",
                url_for("publish.changes", agent=agent))


@bp.get("/agents/<agent>/snapshots/<id:number>/bundle")
@requires("viewer")
def download(agent: str, number: int) -> Response:
    """Snapshot `number` as the bundle file it was published as."""
    snapshot = store.get_snapshot(get_session(), agent, number)
    return send_file(BytesIO(snapshot.bundle.encode("utf-8")), mimetype="application/json",
                     as_attachment=True,
                     download_name=download_name(f"{agent}.published-{number}.json"))


@bp.app_template_global()
def unpublished(agent: str) -> bool:
    """For the agent's header: whether its workspace differs from the latest snapshot.

    Asked once per agent and request (the layout may ask more than once): a digest
    comparison, no assembly. An agent that does not exist has nothing unpublished.
    """
    known: dict[str, bool] = g.setdefault("unpublished_agents", {})
    if agent not in known:
        try:
            known[agent] = store.has_unpublished_changes(get_session(), agent)
        except store.NotFound:
            known[agent] = False
    return known[agent]


def changes_response(agent: str, status: int = 200, **extra: object) -> Response:
    """The Changes page (or its fragment), with a refused publish's note and reason."""
    session = get_session()
    view = changes_page(session, agent)
    # The header asks the same (`unpublished`): the page has the answer already.
    g.setdefault("unpublished_agents", {})[agent] = view.unpublished
    first = (first_review(session, agent, view.tests, skill_link(agent, {}))
             if view.latest is None else [])
    return page_or_fragment("changes.html", "_changes.html", status, agent=agent, view=view,
                            first=first, draft_fold_urls=draft_fold_urls(agent),
                            labels=store.labels.labels_by_snapshot(session, agent),
                            moved_to=store.labels.moved_to,
                            label_moves=store.list_activity(session, agent=agent,
                                                            kind="label.move", limit=10),
                            **{"note": "", "label": store.labels.PRODUCTION, "errors": {},
                               "conflict": None, **extra})


def draft_fold_urls(agent: str) -> Callable[[str | None], Callable[[Fold], str]]:
    """`urls(name)(fold)`: the address of a fold's lines of the draft's scenario `name`
    (the agent preview's, which answers them for any scenario)."""
    return lambda name: lambda fold: fold_url(agent, fold, {"scenario": name} if name else {})
