"""The agent index and the skill editor with its live context preview and its skill
list (filtered, toggled and reordered in place).

Each route parses the request, calls the store and the pipeline, and renders; the
view data comes from `preview.build_preview`, the page-or-fragment choice from
`responses.page_or_fragment`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    g,
    jsonify,
    redirect,
    request,
    url_for,
)

from webapp import store
from webapp.pipeline import Skill, Workspace, assemble, resolvable_names, whole_number
from webapp.schema.db import get_session
from webapp.store import context_tests
from webapp.views.document_window import Opened, parse_opened
from webapp.views.editor import diagnostics_data, names_data
from webapp.views.panels import LARGE_PAGE, asked_panel, shown_panels
from webapp.views.pipeline_steps import editor_pipeline
from webapp.views.preview import (
    Choice,
    ProblemCounts,
    build_preview,
    own_problems,
    preview_models,
    run_followed,
    with_draft,
)
from webapp.views.skill_lint import skill_lint
from webapp.views.wording import counted

from .access import requires
from .conflicts import conflict_response
from .forms import (
    choice_args,
    filter_query,
    load_trash,
    order_field,
    parse_skill_form,
    picker_choice,
    pipeline_args,
    request_data,
)
from .preview_links import editor_links, skill_link, step_links
from .responses import (
    done,
    flag,
    page_or_fragment,
    wants_fragment,
    without_slash,
)
from .skill_list import list_context, skill_list_changed, skill_list_response

bp = Blueprint("editor", __name__)

#: The scenario picker's query arguments, which links between skills keep.
PICKER_FIELDS = ("scenario", "trigger", "message", "provider")

#: How often a toggle that met a concurrent save is tried again before answering 409.
TOGGLE_TRIES = 5


@bp.get("/agents/<agent>")
@requires("viewer")
def agent(agent: str) -> Response:
    """Open the agent's first skill; an agent without skills has a page saying how to start."""
    session = get_session()
    row = store.get_agent(session, agent)
    skills = store.list_skills(session, row)
    if not skills:
        return page_or_fragment("agent_empty.html", "_agent_empty.html", agent=row.name,
                                trash=len(store.list_trash(session, row)))
    picker = {key: request.args[key] for key in PICKER_FIELDS if request.args.get(key)}
    return redirect(url_for("editor.edit", agent=agent, d_tag=skills[0].d_tag, **picker))


@bp.get("/agents/<agent>/skills/<path:d_tag>")
@requires("viewer")
def edit(agent: str, d_tag: str) -> Response:
    """The editor: skill list, form and the preview of the saved skill."""
    row = store.get_skill(get_session(), agent, d_tag)
    return editor_response(agent, row.version, store.skill_of(row), request.args)


@bp.get("/agents/<agent>/skills/<path:d_tag>/preview")
@requires("viewer")
def preview_saved(agent: str, d_tag: str) -> Response:
    """The preview of the saved skill for the scenario in the query string."""
    row = store.get_skill(get_session(), agent, d_tag)
    return editor_response(agent, row.version, store.skill_of(row), request.args,
                           fragment="_preview.html")


@bp.post("/agents/<agent>/skills/<path:d_tag>/preview")
@requires("viewer")
def preview(agent: str, d_tag: str) -> Response:
    """The preview of the submitted draft; nothing is saved."""
    row = store.get_skill(get_session(), agent, d_tag)
    data, from_form = request_data()
    form = parse_skill_form(data, store.skill_of(row), from_form=from_form)
    return editor_response(agent, form.version or row.version, form.draft, data,
                           errors=form.errors, fragment="_preview.html", dirty=True)


@bp.post("/agents/<agent>/skills/<path:d_tag>")
@requires("author")
def save(agent: str, d_tag: str) -> Response:
    """Save the draft from the version it was loaded at; a stale version, or a skill
    renamed, trashed or deleted meanwhile, gets the conflict page with the author's text."""
    session = get_session()
    try:
        row = store.last_known(session, agent, d_tag)
    except store.NotFound:  # the agent went to the trash or was deleted
        row = None
    # `notes/` saved as `notes` (a 308 keeps the body), if no skill was ever `notes/`.
    slash = without_slash() if row is None else None
    if slash is not None:
        return slash
    data, from_form = request_data()
    base = store.skill_of(row) if row is not None else Skill(d_tag=d_tag, content="")
    form = parse_skill_form(data, dataclasses.replace(base, d_tag=d_tag), from_form=from_form)
    here = row is not None and row.d_tag == d_tag and row.deleted_at is None
    if form.version is None:
        form.errors.setdefault("version", "is required: the version the edit started from")
    if form.errors and here:
        return editor_response(agent, form.version or row.version, form.draft, data,
                               errors=form.errors, dirty=True)
    try:
        saved = save_draft(agent, d_tag, form.draft, form.version or 0, form.note)
    except store.Conflict as exc:
        return conflict_response(agent, d_tag, form.draft, form.version or 0, exc, data)
    except store.NotFound:
        return conflict_response(agent, d_tag, form.draft, form.version or 0,
                                 store.Conflict.gone(d_tag, form.draft), data)
    except (store.ValidationError, store.InUse) as exc:
        errors = exc.errors if isinstance(exc, store.ValidationError) else {"d_tag": str(exc)}
        return editor_response(agent, form.version, form.draft, data, errors=errors, dirty=True)
    workspace = store.load_workspace(session, agent)
    choice, _ = picker_choice(data, workspace)
    url = url_for("editor.edit", agent=agent, d_tag=saved.d_tag,
                  q=filter_query(data) or None, **choice_args(choice, workspace))
    outcome = save_outcome(agent, saved, form.version, own_problems(workspace, saved.d_tag,
                                                                     choice))
    if request.headers.get(SAVE_IN_PLACE):
        return jsonify(outcome | {"url": url, "problems_url": url + "#problems"})
    flash(outcome["message"])
    return redirect(url, 303)


@bp.post("/agents/<agent>/skills/<path:d_tag>/enabled")
@requires("author")
def toggle(agent: str, d_tag: str) -> Response:
    """Enable or disable a skill from the list (saved at once, as a new version).

    Setting a flag is idempotent, so a save that met another one is tried again from the
    version now saved; after a few such tries the answer is the 409 page.
    """
    data, _ = request_data()
    for attempt in range(TOGGLE_TRIES):
        try:
            store.set_skill_enabled(get_session(), agent, d_tag, flag(data.get("enabled")))
            break
        except store.Conflict:
            if attempt == TOGGLE_TRIES - 1:
                raise
    return skill_list_changed(agent, data)


@bp.post("/agents/<agent>/skills/<path:d_tag>/move")
@requires("author")
def move(agent: str, d_tag: str) -> Response:
    """Move a skill one place up or down in the adoption order."""
    session = get_session()
    data, _ = request_data()
    direction = data.get("direction")
    if direction not in ("up", "down"):
        abort(422, description=f"direction: must be up or down, not {direction!r}")
    order = [s.d_tag for s in store.list_skills(session, agent)]
    if d_tag not in order:
        abort(404, description=f"No skill {d_tag!r}.")
    i = order.index(d_tag)
    j = i - 1 if direction == "up" else i + 1
    if 0 <= j < len(order):
        order[i], order[j] = order[j], order[i]
        store.reorder_skills(session, agent, order)
    return skill_list_changed(agent, data)


@bp.post("/agents/<agent>/order")
@requires("author")
def order(agent: str) -> Response:
    """Set the whole adoption order (the list's drag and drop): `order` names every skill once."""
    data, from_form = request_data()
    try:
        store.reorder_skills(get_session(), agent, order_field(data, from_form=from_form))
    except store.ValidationError as exc:
        if not wants_fragment():
            raise  # the 422 page
        # The list as saved (the drop undone) with the reason, in place.
        return skill_list_response(agent, data, status=422, order_error=exc.errors["order"])
    return skill_list_changed(agent, data)


@bp.get("/agents/<agent>/skill-list")
@requires("viewer")
def skill_list(agent: str) -> Response:
    """The skill list filtered by `q`, for htmx; otherwise a redirect to the editor."""
    return skill_list_response(agent, request.args)


@bp.get("/agents/<agent>/names")
@requires("viewer")
def names(agent: str) -> Response:
    """What each `{{name}}` of the agent is and gives for `scenario`, as JSON: the code
    editor asks again when the preview's scenario changes. Revalidated by its ETag."""
    workspace = store.load_workspace(get_session(), agent)
    scenario = request.args.get("scenario") or None
    link = skill_link(agent, {"scenario": scenario} if scenario else {})
    response = jsonify(names_data(resolvable_names(workspace, scenario), link))
    response.headers["Cache-Control"] = "private, no-cache"
    response.add_etag()
    return response.make_conditional(request)


@bp.post("/agents/<agent>/skills/<path:d_tag>/log")
@requires("author")
def append_log(agent: str, d_tag: str) -> Response:
    """Append the previewed context (draft included) to the agent's context log."""
    session = get_session()
    row = store.get_skill(session, agent, d_tag)
    data, from_form = request_data()
    form = parse_skill_form(data, store.skill_of(row), from_form=from_form)
    workspace = store.load_workspace(session, agent)
    choice, errors = picker_choice(data, workspace)
    if form.errors or errors:
        reasons = "; ".join(f"{k}: {v}" for k, v in {**form.errors, **errors}.items())
        abort(422, description=reasons)
    # The context the preview shows: the skill keeps its saved d_tag until it is saved.
    draft = dataclasses.replace(form.draft, d_tag=d_tag)
    context, followed = run_followed(workspace, draft, choice)
    entry = store.log_context(session, agent, context, scenario=followed.scenario,
                              source=store.DRAFT)
    appended = entry.created_at.strftime("%Y-%m-%d %H:%M:%S UTC")
    return done("Appended the context to the log.",
                url_for("editor.edit", agent=agent, d_tag=d_tag, **choice_args(choice, workspace)),
                in_place=lambda: page_or_fragment("editor.html", "_log_status.html",
                                                  appended=appended))


@bp.post("/agents/<agent>/skills/<path:d_tag>/tests/approve")
@requires("author")
def approve_test(agent: str, d_tag: str) -> Response:
    """Approve the new output: a snapshot test of a scenario stores the context-log entry
    the draft assembles for it (who, when); the preview comes back with it passing."""
    session = get_session()
    row = store.get_skill(session, agent, d_tag)
    data, from_form = request_data()
    form = parse_skill_form(data, store.skill_of(row), from_form=from_form)
    workspace = store.load_workspace(session, agent)
    scenario = workspace.scenarios_by_name.get(str(data.get("test_scenario", "")))
    index = whole_number(str(data.get("test_index", "")), 6)
    index = -1 if index is None else index
    if (scenario is None or not 0 <= index < len(scenario.expect) or form.errors
            or "snapshot" not in scenario.expect[index]):
        abort(422, description="no such snapshot test, or a draft that cannot be previewed")
    drafted = with_draft(workspace, dataclasses.replace(form.draft, d_tag=d_tag))
    entry = assemble(drafted, scenario).log_entry
    expect = context_tests.approve(workspace, scenario.name, index, entry,
                                   store.current_actor())
    store.update_scenario(session, agent, scenario.name, expect=expect)
    return editor_response(agent, form.version or row.version, form.draft, data,
                           fragment="_preview.html", dirty=True)


# -- helpers

#: The header `app.js` sends with Ctrl/Cmd+S: a save that succeeds answers with JSON
#: (`save_outcome`), so the page stays as it is; any other answer is the usual page.
SAVE_IN_PLACE = "X-Save-In-Place"


def save_outcome(agent: str, saved: Any, version: int, problems: ProblemCounts
                 ) -> dict[str, Any]:
    """What a save did, for its message: the version, whether anything changed, the
    skill's own errors (a skill with errors is saved all the same, and says so)."""
    changed = saved.version != version
    if not changed:
        message = f"No change to save: {saved.d_tag} is still version {saved.version}."
    else:
        note = store.get_revision(get_session(), agent, saved.d_tag, saved.version).note
        renamed = f" ({note})" if note and note.startswith("renamed from") else ""
        errors = f" with {counted(problems.error, 'error')}" if problems.error else ""
        message = f"Saved {saved.d_tag} as version {saved.version}{errors}{renamed}."
    return {"saved": True, "changed": changed, "d_tag": saved.d_tag,
            "version": saved.version, "errors": problems.error, "message": message}


def save_draft(agent: str, d_tag: str, draft: Skill, version: int, note: str | None = None
               ) -> Any:
    """Save `draft` over version `version`, renamed if its `d_tag` changed (one transaction),
    with the author's `note` on the new version (History shows it).

    Renaming updates `{{d_tag}}` references in other skills, so nothing breaks.
    """
    return store.save_skill(get_session(), agent, d_tag, expected_version=version,
                            content=draft.content, name=draft.name, layer=draft.layer,
                            triggers=list(draft.triggers), enabled=draft.enabled,
                            description=draft.description, new_d_tag=draft.d_tag, note=note)


def editor_context(agent: str, version: int, draft: Skill, workspace: Workspace,
                   choice: Choice, current: str, fragment: str, query: str = "",
                   whole: bool = False, opened: Sequence[Opened] = ()) -> dict[str, Any]:
    """Everything `editor.html` and its fragments need (`whole`: the document unwindowed;
    `opened`: the folds the author opened)."""
    scenario = workspace.scenarios_by_name.get(choice.scenario or "")
    # Only the skill list shows the problem counts and the filter, and only the form
    # carries the names block; a preview has neither.
    no_list = wants_fragment() and fragment == "_preview.html"
    args = choice_args(choice, workspace)
    preview = build_preview(workspace, draft, choice, preview_models(current_app.config),
                            skill_link(agent, args), whole=whole, opened=opened)
    return {
        "agent": agent,
        "current": current,
        "version": version,
        "draft": draft,
        "line_count": draft.content.count("\n") + 1,
        **({"skills": workspace.skills, "problem_counts": {}, "q": "", "shown": frozenset()}
           if no_list else list_context(workspace, choice, query)),
        "choice": choice,
        "choice_args": args,
        "scenarios": list(workspace.scenarios_by_name),
        "scenario_defaults": scenario or Choice(),
        "triggers": workspace.triggers,
        "preview": preview,
        # The Pipeline tab's, made when it is shown.
        "pipeline": lambda: editor_pipeline(preview, load_trash(agent)),
        "step_url": step_links(agent, pipeline_args(preview.followed, workspace)),
        "editor_names": None if no_list else names_data(
            resolvable_names(workspace, preview.target.scenario), skill_link(agent, args)),
        "editor_diagnostics": diagnostics_data(preview.problems, preview.d_tag,
                                               preview.target.scenario),
        "errors": {},
        "dirty": False,
        **editor_links(agent, current, args),
    }


def editor_response(agent: str, version: int, draft: Skill, data: Any, *,
                    errors: dict[str, str] | None = None, fragment: str = "_editor.html",
                    dirty: bool = False) -> Response:
    """Render the editor (or one of its fragments); any errors make it a 422."""
    session = get_session()
    current = request.view_args["d_tag"]
    workspace = store.load_workspace(session, agent)
    choice, choice_errors = picker_choice(data, workspace)
    errors = {**(errors or {}), **choice_errors}
    # The preview keeps the saved d_tag: a rename takes effect when it is saved.
    shown = draft if draft.d_tag == current else dataclasses.replace(draft, d_tag=current)
    # The open panel alone (`shown`, which app.js keeps to the open tab); the rest come
    # as placeholders, filled when their tab is opened. A request naming no panel shows
    # every panel, unless the document is large (`DocumentWindow.large`: long, or
    # heavy): then the Document's rendered view alone, each other panel a placeholder
    # whose "Show this panel" button (no JavaScript) posts the draft again for it. A
    # draft posted without the field shows its whole document: no link could load a
    # part of a draft again. (A field naming no panel shows it windowed.)
    g.shown_panels = asked = shown_panels(asked_panel(data))
    # The folds the author opened stay open (`opened`, which app.js keeps).
    context = editor_context(agent, version, shown, workspace, choice, current, fragment,
                             filter_query(data),
                             whole=data.get("shown") is None and request.method != "GET",
                             opened=parse_opened(data.get("opened")))
    if asked is None and context["preview"].window.large:
        g.shown_panels = LARGE_PAGE
    # A save sent back (errors) keeps the note typed for it.
    note = data.get("note") if request.method == "POST" else None
    context.update(draft=draft, errors=errors, dirty=dirty or bool(errors),
                   note=note if isinstance(note, str) else "",
                   skill_lint=skill_lint(draft, store.folder_facts(session, agent, current)))
    return page_or_fragment("editor.html", fragment, 422 if errors else 200, **context)
