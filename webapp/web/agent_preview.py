"""The whole-agent preview: the context a scenario gives, with the editor's tabs, and a
side-by-side comparison of two scenarios or two triggers.

The view data comes from `agent_view` (built on the editor's `preview` pieces); nothing
here assembles differently from the editor, there is just no draft skill.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, abort, current_app, g, request, url_for

from webapp import store
from webapp.pipeline import Skill, Workspace
from webapp.schema.db import get_session
from webapp.store import test_runs
from webapp.views.agent_preview import build, build_comparison, compared
from webapp.views.diff_window import DIFFS, LAYOUTS, STAGE_LAYOUTS, DiffFold, diff_page
from webapp.views.document_window import VIEWS, DocumentWindow, is_count, parse_lines
from webapp.views.messages import request_bodies
from webapp.views.panels import LARGE_PAGE, shown_panels
from webapp.views.pipeline_steps import StageView, explained, stages_followed
from webapp.views.preview import Choice, preview_models, run, run_followed

from .access import requires
from .forms import (
    choice_args,
    load_trash,
    load_workspace,
    parse_choice,
    parse_skill_form,
    picker_choice,
    pipeline_args,
    request_data,
)
from .preview_links import agent_links, editor_links, skill_link, step_links
from .responses import done, page_or_fragment, wants_fragment

bp = Blueprint("agent_preview", __name__)


@bp.get("/agents/<agent>/preview")
@requires("viewer")
def show(agent: str) -> Response:
    """The agent's context for the scenario (and overrides) in the query string (with
    `shown`, that panel alone; with `parts=all`, every part in the Budget chart)."""
    workspace = load_workspace(agent)
    choice, errors = picker_choice(request.args, workspace)
    args = choice_args(choice, workspace)
    preview = build(workspace, choice, preview_models(current_app.config), skill_link(agent, args))
    # As in the editor: a large document's page renders the open panel alone.
    g.shown_panels = shown_panels(request.args.get("shown")) or (
        LARGE_PAGE if preview.window.large else None)
    return page_or_fragment(
        "agent_preview.html", "_agent_preview.html", 422 if errors else 200,
        **picker_context(agent, workspace, choice), **agent_links(agent, args),
        step_url=step_links(agent, pipeline_args(choice, workspace)),
        preview=preview, errors=errors, every_part=request.args.get("parts") == "all",
        # Run when their tab is shown.
        tests=lambda: agent_tests(agent, workspace),
        pipeline=lambda: explained(workspace, choice, load_trash(agent), preview.context))


def agent_tests(agent: str, workspace: Workspace) -> dict[str, Any]:
    """Every scenario's context tests on the draft, and on the snapshot the agent is given
    (the `production` label's; None when there is none), for the Tests tab."""
    session = get_session()
    served = store.labelled_or_none(session, agent)
    published = (test_runs.run_kept(session, agent, store.snapshot_workspace(served))
                 if served is not None else None)
    return {"draft": test_runs.run_kept(session, agent, workspace), "published": published,
            "number": served.number if served is not None else None}


@bp.route("/agents/<agent>/preview/lines", methods=["GET", "POST"])
@requires("viewer")
def lines(agent: str) -> Response:
    """Lines of a large document's Document tab that were folded (`view`, `lines`): the
    agent preview's, or with `skill` the editor's preview of that skill, saved (GET) or
    of the draft the editor's form posts."""
    view, span = request.args.get("view"), parse_lines(request.args.get("lines"))
    if view not in VIEWS or span is None:
        abort(422, description="view: rendered or source; lines: like 121-340")
    workspace = load_workspace(agent)
    skill = request.args.get("skill") or None
    window, args = fold_window(agent, workspace, skill)
    links = editor_links(agent, skill, args) if skill else agent_links(agent, args)
    return page_or_fragment("preview_lines.html", "_preview_lines.html", agent=agent,
                            skill=skill, view=view, span=span, args=args,
                            parts=window.expand(view, *span), **links)


@bp.route("/agents/<agent>/preview/stage", methods=["GET", "POST"])
@requires("viewer")
def stage_rows(agent: str) -> Response:
    """Rows of a stage of the editor's Pipeline tab that were folded (`skill`, `stage`,
    `layout`, `rows`): of the saved skill (GET) or of the draft the editor's form posts."""
    index, layout = request.args.get("stage", ""), request.args.get("layout")
    span, skill = parse_lines(request.args.get("rows")), request.args.get("skill")
    if not is_count(index) or layout not in STAGE_LAYOUTS \
            or span is None or not skill:
        abort(422, description="skill: a d_tag; stage: a number; layout: text, unified or "
                               "split; rows: like 121-340")
    workspace = load_workspace(agent)
    draft, choice, args = fold_source(agent, workspace, skill)
    stage = stage_of(stages_followed(workspace, draft, choice), int(index), layout)
    links = editor_links(agent, skill, args)
    if not wants_fragment():
        links["fold_method"] = "get"  # a page has no form to post: its folds are links
    return page_or_fragment("stage_rows.html", "_stage_rows.html", agent=agent, skill=skill,
                            stage=stage, layout=layout, span=span,
                            items=stage.page(int(index), layout, *span), **links)


@bp.route("/agents/<agent>/preview/body", methods=["GET", "POST"])
@requires("viewer")
def body(agent: str) -> Response:
    """A request body (`provider`: openai or anthropic) whole, as JSON: of the agent
    preview's context, or with `skill` of the editor's preview of it (saved, or the
    draft the form posts)."""
    provider = request.args.get("provider")
    workspace = load_workspace(agent)
    window, _ = fold_window(agent, workspace, request.args.get("skill") or None)
    models = preview_models(current_app.config)
    bodies = {b.slug: b for b in request_bodies(window.context.messages, models)}
    if provider not in bodies:
        abort(422, description="provider: openai or anthropic")
    return Response(bodies[provider].text, mimetype="application/json")


@bp.post("/agents/<agent>/preview/log")
@requires("author")
def append_log(agent: str) -> Response:
    """Append the previewed context to the agent's context log."""
    session = get_session()
    workspace = load_workspace(agent)
    data, _ = request_data()
    choice, errors = picker_choice(data, workspace)
    if errors:
        abort(422, description="; ".join(f"{k}: {v}" for k, v in errors.items()))
    entry = store.log_context(session, agent, run(workspace, choice), scenario=choice.scenario,
                              source=store.DRAFT)
    appended = entry.created_at.strftime("%Y-%m-%d %H:%M:%S UTC")
    return done("Appended the context to the log.",
                url_for("agent_preview.show", agent=agent, **choice_args(choice, workspace)),
                in_place=lambda: page_or_fragment("agent_preview.html", "_log_status.html",
                                                  appended=appended))


@bp.get("/agents/<agent>/preview/compare")
@requires("viewer")
def compare(agent: str) -> Response:
    """Two scenarios, or one scenario under two triggers, side by side with their diff."""
    workspace = load_workspace(agent)
    a, b, errors = sides(request.args, workspace)
    comparison = build_comparison(workspace, a, b, preview_models(current_app.config))
    return page_or_fragment(
        "agent_preview_compare.html", "_compare.html", 422 if errors else 200,
        agent=agent, comparison=comparison, errors=errors,
        scenarios=[sc.name for sc in workspace.scenarios], triggers=workspace.triggers,
        workspace=workspace, fold_url=compare_fold_url(agent, a, b))


@bp.get("/agents/<agent>/preview/compare/lines")
@requires("viewer")
def compare_lines(agent: str) -> Response:
    """Rows of a comparison's diff that were folded (`diff`, `layout`, `rows`): in place
    of the fold (htmx), or as a page of their own."""
    which, layout = request.args.get("diff"), request.args.get("layout")
    span = parse_lines(request.args.get("rows"))
    if which not in DIFFS or layout not in LAYOUTS or span is None:
        abort(422, description="diff: document or messages; layout: unified or split; "
                               "rows: like 121-340")
    workspace = load_workspace(agent)
    a, b, _ = sides(request.args, workspace)
    diff = compared(run(workspace, a), run(workspace, b), which)
    return page_or_fragment(
        "compare_lines.html", "_compare_lines.html", agent=agent, which=which,
        layout=layout, span=span, items=diff_page(diff, which, layout, *span),
        fold_url=compare_fold_url(agent, a, b), back=compare_fold_url(agent, a, b)(None))


# -- helpers


def fold_window(agent: str, workspace: Workspace, skill: str | None
                ) -> tuple[DocumentWindow, dict[str, str]]:
    """The window of the document a fold belongs to, and the picker's arguments: the
    agent preview's (no `skill`), or the editor's preview of `skill` (`fold_source`),
    assembled where that preview is (`run_followed`)."""
    if skill is None:
        choice, args = fold_choice(workspace)
        return DocumentWindow(run(workspace, choice), None, skill_link(agent, args)), args
    draft, choice, args = fold_source(agent, workspace, skill)
    context, _ = run_followed(workspace, draft, choice)
    return DocumentWindow(context, skill, skill_link(agent, args)), args


def fold_choice(workspace: Workspace) -> tuple[Choice, dict[str, str]]:
    """The picker's choice a fold's request names (posted with the editor's form, or in
    its query string), and its arguments for links."""
    data = request_data()[0] if request.method == "POST" else request.args
    choice, _ = picker_choice(data, workspace)
    return choice, choice_args(choice, workspace)


def fold_source(agent: str, workspace: Workspace, skill: str
                ) -> tuple[Skill, Choice, dict[str, str]]:
    """Skill `skill` as the editor's preview a fold belongs to shows it: the draft the
    editor's form posts (a POST) or the saved skill (a GET, 404 if there is none); and
    the picker's choice and arguments."""
    choice, args = fold_choice(workspace)
    saved = store.skill_of(store.get_skill(get_session(), agent, skill))
    if request.method != "POST":
        return saved, choice, args
    # The preview keeps the saved d_tag until a rename is saved (as the editor does).
    form = parse_skill_form(request_data()[0], saved, from_form=not request.is_json)
    return dataclasses.replace(form.draft, d_tag=skill), choice, args


def stage_of(stages: list[StageView], index: int, layout: str) -> StageView:
    """The `index`th of `stages`, if `layout` is one it is shown in (`text` the first
    stage, a diff's layout the others); else 404."""
    if index >= len(stages) or (layout == "text") != (stages[index].diff is None):
        abort(404, description=f"No stage {index} laid out as {layout} in this pipeline.")
    return stages[index]


def sides(args: Any, workspace: Workspace) -> tuple[Choice, Choice, dict[str, str]]:
    """The comparison's two sides from the query string, and what was not valid in it;
    without `b`, the right side is the agent's other scenario (or the same one)."""
    a, errors = side(args, "a", workspace)
    default_b = a.scenario
    if "b" not in args and len(workspace.scenarios) > 1:
        names = [sc.name for sc in workspace.scenarios]
        default_b = names[1] if a.scenario == names[0] else names[0]
    b, errors_b = side(args, "b", workspace, default=default_b)
    return a, b, errors | errors_b


def compare_fold_url(agent: str, a: Choice, b: Choice) -> Callable[[DiffFold | None], str]:
    """`url(fold)`: the address of a fold's rows of the comparison of `a` and `b`
    (`url(None)`: the comparison page)."""
    args = {"a": a.scenario, "a_trigger": a.trigger, "b": b.scenario, "b_trigger": b.trigger}

    def url(fold: DiffFold | None) -> str:
        if fold is None:
            return url_for("agent_preview.compare", agent=agent, **args)
        return url_for("agent_preview.compare_lines", agent=agent, diff=fold.which,
                       layout=fold.layout, rows=fold.rows, **args)
    return url


def side(args: Any, prefix: str, workspace: Workspace, default: str | None = None
         ) -> tuple[Choice, dict[str, str]]:
    """One side of a comparison from `a=`/`a_trigger=` (or `b=`...)."""
    scenario = args.get(prefix) or default
    choice, errors = parse_choice({"scenario": scenario,
                                   "trigger": args.get(f"{prefix}_trigger")}, workspace)
    return choice, {f"{prefix}{'_' + key if key != 'scenario' else ''}": message
                    for key, message in errors.items()}


def picker_context(agent: str, workspace: Workspace, choice: Choice) -> dict[str, Any]:
    """What the editor's `_scenario_picker.html` needs, plus the links that keep the choice."""
    scenario = workspace.scenarios_by_name.get(choice.scenario or "")
    return {
        "agent": agent,
        "choice": choice,
        "choice_args": choice_args(choice, workspace),
        "scenarios": list(workspace.scenarios_by_name),
        "scenario_defaults": scenario or Choice(),
        "triggers": workspace.triggers,
    }
