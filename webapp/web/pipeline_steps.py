"""The pipeline explained, step by step: every step of an agent's assembly for a scenario,
and a page per step with a stable address a presenter can walk a room through.

    /agents/<agent>/pipeline                  every step, in order
    /agents/<agent>/pipeline/<step>           one step (`?scenario=`, `trigger`, `message`,
                                              `provider` as the agent preview takes them;
                                              `skill`: the skill to open; `view=present`)

The steps are the pipeline's `explain` (`views.pipeline_steps` adds diffs and counts);
nothing here assembles differently from the agent preview.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, request, url_for

from webapp.pipeline import Workspace
from webapp.views.pipeline_steps import StepPage, explained, step_explained
from webapp.views.preview import Choice, preview_models

from .access import requires
from .forms import choice_args, load_trash, load_workspace, picker_choice, pipeline_args
from .preview_links import PRESENT, step_links
from .responses import page_or_fragment

bp = Blueprint("pipeline_steps", __name__)

@bp.get("/agents/<agent>/pipeline")
@requires("viewer")
def index(agent: str) -> Response:
    """Every step of the agent's assembly for the scenario in the query string."""
    workspace = load_workspace(agent)
    choice, errors = picker_choice(request.args, workspace)
    explanation = explained(workspace, choice, load_trash(agent))
    return page_or_fragment("pipeline.html", "_pipeline.html", 422 if errors else 200,
                            **page_context(agent, workspace, choice, errors),
                            explanation=explanation)


@bp.get("/agents/<agent>/pipeline/<step>")
@requires("viewer")
def show(agent: str, step: str) -> Response:
    """One step of the agent's assembly (`skill`: the skill to open; `view=present`: the
    presentation layout)."""
    workspace = load_workspace(agent)
    choice, errors = picker_choice(request.args, workspace)
    explanation = step_explained(workspace, choice, step, load_trash(agent))
    index = explanation.place(step)
    if index is None:
        keys = ", ".join(s.key for s in explanation.outline)
        abort(404, description=f"The pipeline has no step “{step}”; its steps are {keys}.")
    page = StepPage(explanation, index, request.args.get("skill") or None,
                    preview_models(current_app.config))
    return page_or_fragment("pipeline_step.html", "_pipeline_step.html",
                            422 if errors else 200,
                            **page_context(agent, workspace, choice, errors), step_page=page)


def page_context(agent: str, workspace: Workspace, choice: Choice,
                 errors: dict[str, str]) -> dict[str, Any]:
    """What the pipeline's pages share: the agent, the choice, its errors, the links."""
    present = request.args.get("view") == PRESENT
    return {"agent": agent, "choice": choice, "errors": errors, "present": present,
            "scenarios": list(workspace.scenarios_by_name),
            "step_url": step_links(agent, pipeline_args(choice, workspace), present),
            "preview_url": url_for("agent_preview.show", agent=agent,
                                   **choice_args(choice, workspace))}
