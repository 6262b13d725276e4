"""The whole-agent preview: the context a scenario gives, with the editor's tabs, and a
side-by-side comparison of two scenarios or two triggers.

The view data comes from `agent_view` (built on the editor's `preview` pieces); nothing
here assembles differently from the editor, there is just no draft skill.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, request, url_for

from webapp import store
from webapp.db import get_session
from webapp.pipeline import Workspace

from .agent_view import build, build_comparison
from .forms import choice_args, parse_choice, picker_choice, request_data
from .preview import Choice, run, skill_link
from .responses import done, page_or_fragment
from .workspace import load_workspace

bp = Blueprint("agent_preview", __name__)


@bp.get("/agents/<agent>/preview")
def show(agent: str) -> Response:
    """The agent's context for the scenario (and overrides) in the query string."""
    workspace = load_workspace(agent)
    choice, errors = picker_choice(request.args, workspace)
    return page_or_fragment(
        "agent_preview.html", "_agent_preview.html", 422 if errors else 200,
        **picker_context(agent, workspace, choice),
        preview=build(workspace, choice, skill_link(agent, choice_args(choice, workspace))),
        errors=errors)


@bp.post("/agents/<agent>/preview/log")
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
def compare(agent: str) -> Response:
    """Two scenarios, or one scenario under two triggers, side by side with their diff."""
    workspace = load_workspace(agent)
    a, errors = side(request.args, "a", workspace)
    default_b = a.scenario
    if "b" not in request.args and len(workspace.scenarios) > 1:
        names = [sc.name for sc in workspace.scenarios]
        default_b = names[1] if a.scenario == names[0] else names[0]
    b, errors_b = side(request.args, "b", workspace, default=default_b)
    errors.update(errors_b)
    comparison = build_comparison(workspace, a, b)
    return page_or_fragment(
        "agent_preview_compare.html", "_compare.html", 422 if errors else 200,
        agent=agent, comparison=comparison, errors=errors,
        scenarios=[sc.name for sc in workspace.scenarios], triggers=workspace.triggers,
        workspace=workspace)


# -- helpers


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
