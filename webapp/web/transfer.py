"""Moving work in and out: `skill-workspace/1` bundles and Agent Skills folders (a SKILL.md,
a zip of one skill's folder, or a zip of a whole skills repository).

Imports are all or nothing: the upload is read and parsed here, then the store checks
it completely with its rules (every problem listed, with its JSON path for a bundle,
the same paths and messages `skill-editor import` prints) before it writes anything, in
one transaction. A problem answers 422 with the form as it was sent. Skills are
previewed first (`preview_skills`: each new, updated with its diff, or unchanged); the
import then sends the preview's token, and applies exactly what was shown
(`store.import_skills`) or answers 409 when the agent changed meanwhile. Reading folders
and zips is `webapp.agentskills`'s. The import routes take bodies up to
`IMPORT_MAX_CONTENT_LENGTH` (`security.takes_imports`), and say which `{{references}}` of
what they imported resolve to nothing in the agent.
"""

from __future__ import annotations

from io import BytesIO
from typing import Any

from flask import Blueprint, Response, redirect, request, send_file, url_for
from werkzeug.datastructures import FileStorage

from webapp import agentskills, store
from webapp.pipeline import (
    BundleError,
    Problem,
    Workspace,
    bundle_text,
    load_bundle,
    parse_json,
    unknown_names,
)
from webapp.schema.db import get_session
from webapp.views.skill_imports import import_rows
from webapp.views.wording import counted

from .access import requires
from .responses import done, download_name, flag, page_or_fragment, wants_fragment
from .security import takes_imports

bp = Blueprint("transfer", __name__)

BUNDLE_SUFFIX = ".skill-workspace.json"
#: How many unknown `{{names}}` an import's message lists (it counts them all), and how
#: much of each it shows.
UNKNOWN_SHOWN = 5
UNKNOWN_NAME_CHARS = 40
#: The note of the revisions a skills import writes.
IMPORT_NOTE = "imported from SKILL.md"


@bp.get("/transfer")
@requires("viewer")
def index() -> Response:
    """The import forms and the export links (`?agent=` picks the agent to show first)."""
    return transfer_response(request.args.get("agent"))


@bp.get("/transfer/bundle")
@bp.get("/transfer/skill")
@requires("viewer")
def import_address() -> Response:
    """An import's address opened or reloaded (after a 422 it is in the address bar): the
    import page, for the agent of `?agent=` if given."""
    return redirect(url_for("transfer.index", agent=request.args.get("agent") or None), 303)


@bp.post("/transfer/bundle")
@takes_imports
@requires("author", flags={"replace": "admin"})
def import_bundle() -> Response:
    """Import a bundle (uploaded or pasted) as a new agent, or over one if `replace` is set."""
    form = request.form
    name = form.get("agent_name", "").strip() or None
    shown = request.args.get("agent")  # the agent the import page was opened for
    try:
        workspace = read_bundle(request.files.get("bundle_file"), form.get("bundle_text", ""))
        agent = store.import_bundle(get_session(), workspace, replace=flag(form.get("replace")),
                                    agent_name=name)
    except BundleError as exc:
        problems = [(problem.path, problem.message) for problem in exc.problems]
        return transfer_response(shown, 422, bundle_problems=problems)
    except store.ValidationError as exc:  # the store's rules, or a name taken without `replace`
        return transfer_response(shown, 422, bundle_problems=exc.problems)
    except store.Conflict as exc:
        return transfer_response(shown, 409, bundle_problems=[("$.skills", f"not imported: {exc}")])
    skills = store.list_skills(get_session(), agent)
    unknown = unknown_names(workspace, workspace.skills)
    return done(f"Imported {agent.name}: {counted(len(skills), 'skill')}, "
                f"{counted(len(workspace.tools), 'tool')}, "
                f"{counted(len(workspace.variables), 'variable')}, "
                f"{counted(len(workspace.scenarios), 'scenario')}."
                + unknown_note(agent.name, unknown), url_for("editor.agent", agent=agent.name))


@bp.get("/agents/<agent>/bundle")
@requires("viewer")
def export_bundle(agent: str) -> Response:
    """The agent's workspace as a `skill-workspace/1` bundle file."""
    bundle = store.export_bundle(get_session(), agent)
    data = bundle_text(bundle)
    return send_file(BytesIO(data.encode("utf-8")), mimetype="application/json",
                     as_attachment=True, download_name=download_name(f"{agent}{BUNDLE_SUFFIX}"))


@bp.get("/agents/<agent>/skills/<path:d_tag>/export")
@requires("viewer")
def export_skill(agent: str, d_tag: str) -> Response:
    """The skill as an Agent Skills folder (`<name>/SKILL.md` and its files), zipped."""
    row = store.get_skill(get_session(), agent, d_tag)
    filename, data = agentskills.zip_skill(store.folder_of(get_session(), row))
    return send_file(BytesIO(data), mimetype="application/zip", as_attachment=True,
                     download_name=filename)


@bp.get("/agents/<agent>/skills.zip")
@requires("viewer")
def export_skills(agent: str) -> Response:
    """Every live skill of the agent as a skills folder: a zip with one folder per skill."""
    data = agentskills.zip_folders(store.export_folders(get_session(), agent))
    return send_file(BytesIO(data), mimetype="application/zip", as_attachment=True,
                     download_name=download_name(f"{agent}-skills.zip"))


@bp.post("/transfer/skills/preview")
@takes_imports
@requires("author")
def preview_skills() -> Response:
    """What importing the uploaded skills would do, skill by skill (nothing is written)."""
    agent = request.form.get("agent", "").strip()
    try:
        plan = store.plan_import(get_session(), agent,
                                 read_skills(agent, request.files.get("skill_file")))
    except (agentskills.SkillMdError, store.ValidationError) as exc:
        return transfer_response(agent, skill_problems=exc.problems, previewed=True)
    return transfer_response(agent, skill_plan=plan)


@bp.post("/transfer/skill")
@takes_imports
@requires("author")
def import_skill() -> Response:
    """Import the skills of an uploaded SKILL.md or zip into an agent (created if new); with
    the `token` of a preview, only as that preview showed."""
    agent = request.form.get("agent", "").strip()
    try:
        folders = read_skills(agent, request.files.get("skill_file"))
        plan = store.import_skills(get_session(), agent, folders, note=IMPORT_NOTE,
                                   token=request.form.get("token") or None)
    except (agentskills.SkillMdError, store.ValidationError) as exc:
        return transfer_response(agent, 422, skill_problems=exc.problems)
    except store.StaleImport as exc:
        return transfer_response(agent, 409, skill_problems=[("preview", str(exc))])
    return done(imported_message(plan), url_for("editor.agent", agent=agent)
                if len(plan.items) != 1 else url_for("editor.edit", agent=agent,
                                                      d_tag=plan.items[0].d_tag))


def imported_message(plan: store.ImportPlan) -> str:
    """What an import says it did, with the references of what it wrote that resolve to
    nothing in the agent."""
    workspace = store.load_workspace(get_session(), plan.agent)
    written = [workspace.skills_by_tag[i.d_tag] for i in plan.items if i.status != "unchanged"]
    into = f"into the new agent {plan.agent}" if plan.new_agent else f"into {plan.agent}"
    if len(plan.items) == 1:
        message = f"Imported {plan.items[0].d_tag} {into} ({plan.items[0].status})."
    else:
        message = f"Imported {counted(len(plan.items), 'skill')} {into} ({plan.summary})."
    if plan.left_out:
        names = ", ".join(out.name for out in plan.left_out)
        message += f" Left out, as the preview said why: {names}."
    return message + unknown_note(plan.agent, unknown_names(workspace, written))


def unknown_note(agent: str, names: list[str]) -> str:
    """What an import says of the `{{names}}` that resolve to nothing in `agent` (nothing
    when there are none): ` 2 references do not resolve in Simon: {{x}}, {{y}} — they
    assemble to empty text.`"""
    if not names:
        return ""
    shown = ", ".join("{{" + _cut(name) + "}}" for name in names[:UNKNOWN_SHOWN])
    if len(names) > UNKNOWN_SHOWN:
        shown += f" and {len(names) - UNKNOWN_SHOWN} more"
    verb, what = ("does", "it assembles") if len(names) == 1 else ("do", "they assemble")
    return (f" {counted(len(names), 'reference')} {verb} not resolve in {agent}: {shown} — "
            f"{what} to empty text.")


def _cut(name: str) -> str:
    return name if len(name) <= UNKNOWN_NAME_CHARS else name[:UNKNOWN_NAME_CHARS - 1] + "…"


# -- reading uploads


def read_bundle(upload: FileStorage | None, pasted: str) -> Workspace:
    """The workspace in the uploaded file (else the pasted text), loaded with its checks.

    What the database cannot store is the store's to check (`store.import_bundle`).

    Raises:
        BundleError: every problem, with JSON paths; invalid JSON names line and column.
    """
    if upload is not None and upload.filename:
        text = _decode(upload.read(), "$")
    elif pasted.strip():
        text = pasted
    else:
        raise BundleError([Problem("$", "is empty: choose a bundle file or paste its JSON")])
    data = parse_json(text)
    if not isinstance(data, dict):
        raise BundleError([Problem("$", "must be a JSON object holding the bundle")])
    return load_bundle(data)


def read_skills(agent: str, upload: FileStorage | None) -> list[agentskills.SkillFolder]:
    """The skills in an uploaded SKILL.md or zip (what the database cannot store, and the
    agent's name, are the store's to check: `store.plan_import`).

    Raises:
        agentskills.SkillMdError: every problem found, as `(where, reason)`.
    """
    problems: list[tuple[str, str]] = [] if agent else [("agent", "is required")]
    if upload is None or not upload.filename:
        problems.append(("file", "choose a SKILL.md file, or a zip of skill folders"))
        raise agentskills.SkillMdError(problems)
    try:
        folders = agentskills.read_upload(upload.filename, upload.stream,
                                           store.folder_limits(get_session()))
    except agentskills.SkillMdError as exc:
        raise agentskills.SkillMdError(problems + exc.problems) from None
    if problems:
        raise agentskills.SkillMdError(problems)
    return folders


def _decode(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        message = f"the file is not UTF-8 text (bad byte at offset {exc.start})"
        raise BundleError([Problem(path, message)]) from None


# -- the page


def transfer_response(selected: str | None, status: int = 200, *,
                      skill_plan: store.ImportPlan | None = None, previewed: bool = False,
                      **problems: Any) -> Response:
    """The import and export page; after a failed import it keeps what the author sent,
    and after a preview it shows the plan (`skill_plan`) or why there is none."""
    session = get_session()
    agents = [{"name": row.name,
               "skills": [(s.d_tag, agentskills.skill_name(s.d_tag) + ".zip")
                          for s in store.list_skills(session, row)]}
              for row in store.list_agents(session)]
    form = request.form if request.method == "POST" else {}
    return page_or_fragment(
        "transfer.html", "_transfer.html", status, agents=agents, selected=selected,
        bundle_problems=problems.get("bundle_problems", []),
        skill_problems=problems.get("skill_problems", []), previewed=previewed,
        skill_plan=skill_plan, import_rows=import_rows(skill_plan) if skill_plan else [],
        bundle_text=form.get("bundle_text", ""), agent_name=form.get("agent_name", ""),
        replace=flag(form.get("replace")), bundle_suffix=BUNDLE_SUFFIX,
        is_fragment=wants_fragment())
