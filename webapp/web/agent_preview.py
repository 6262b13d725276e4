"""The whole-agent preview: the context a scenario gives, with the editor's tabs, and a
side-by-side comparison of two scenarios or two triggers.

The view data comes from the editor's `preview` module (message cards, highlighted
source with provenance, request bodies) and `diffing` (the comparison); nothing here
assembles differently from the editor, there is just no draft skill.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, abort, flash, redirect, request, url_for
from markupsafe import Markup

from webapp import store
from webapp.db import get_session
from webapp.pipeline import Context, Diagnostic, Workspace
from webapp.tokens import TokenCount, count_tokens

from .diffing import Diff, diff_lines
from .forms import choice_args, parse_choice, request_data
from .preview import (
    Choice,
    MessageCard,
    RequestBody,
    message_card,
    messages_text,
    preview_models,
    problem_key,
    request_bodies,
    run,
    skill_link,
)
from .responses import page_or_fragment, wants_fragment
from .source_view import source_rows
from .workspace import load_workspace

bp = Blueprint("agent_preview", __name__)


@dataclass
class AgentPreview:
    """What the tabs show for one scenario: the context and its view data."""

    choice: Choice
    context: Context
    cards: list[MessageCard]
    source_rows: list[Markup]  # the Source tab's rows (see `source_view`)
    bodies: list[RequestBody]
    problems: list[Diagnostic]
    total_tokens: TokenCount

    @property
    def counts(self) -> dict[str, int]:
        return self.context.counts()

    @property
    def trigger(self) -> str:
        return self.context.trigger


@dataclass
class Comparison:
    """Two previews and the diffs of their documents and messages."""

    a: AgentPreview
    b: AgentPreview
    document_diff: Diff
    messages_diff: Diff
    only_a: list[Diagnostic]
    only_b: list[Diagnostic]


@bp.get("/agents/<agent>/preview")
def show(agent: str) -> Response:
    """The agent's context for the scenario (and overrides) in the query string."""
    workspace = load_workspace(agent)
    choice, errors = parse_choice(request.args, workspace)
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
    choice, errors = parse_choice(data, workspace)
    if errors:
        abort(422, description="; ".join(f"{k}: {v}" for k, v in errors.items()))
    entry = store.log_context(session, agent, run(workspace, choice), scenario=choice.scenario)
    if not wants_fragment():
        flash("Appended the context to the log.")
        return redirect(url_for("agent_preview.show", agent=agent,
                                **choice_args(choice, workspace)), 303)
    appended = entry.created_at.strftime("%Y-%m-%d %H:%M:%S UTC")
    return page_or_fragment("agent_preview.html", "_log_status.html", appended=appended)


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


def build(workspace: Workspace, choice: Choice, link: Callable[[str], str] | None = None
          ) -> AgentPreview:
    """Assemble `workspace` for `choice` and build the tabs' view data.

    `link(d_tag)` is the URL of a skill's editor, where the Source tab's lines link to
    (without it, they do not link).
    """
    context = run(workspace, choice)
    return AgentPreview(
        choice=choice,
        context=context,
        cards=[message_card(m) for m in context.messages],
        source_rows=source_rows(context.document, context.provenance, None, link),
        bodies=request_bodies(context.messages, preview_models()),
        problems=sorted(context.diagnostics, key=problem_key),
        total_tokens=count_tokens(context.document),
    )


def build_comparison(workspace: Workspace, a: Choice, b: Choice) -> Comparison:
    left, right = build(workspace, a), build(workspace, b)
    in_a, in_b = set(left.problems), set(right.problems)
    return Comparison(
        a=left, b=right,
        document_diff=diff_lines(left.context.document, right.context.document),
        messages_diff=diff_lines(messages_text(left.context.messages),
                                  messages_text(right.context.messages)),
        only_a=[d for d in left.problems if d not in in_b],
        only_b=[d for d in right.problems if d not in in_a],
    )


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
