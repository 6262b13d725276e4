"""The editor's skill list: what it shows of a workspace, and the answer to a change of it
(a reorder, a toggle, a filter): the list for htmx, else a redirect to the editor."""

from __future__ import annotations

from typing import Any

from flask import Response, redirect, request, url_for

from webapp import store
from webapp.pipeline import Workspace, find_skills
from webapp.schema.db import get_session
from webapp.views.preview import Choice, problem_counts

from .forms import choice_args, filter_query, picker_choice
from .responses import page_or_fragment, wants_fragment


def list_context(workspace: Workspace, choice: Choice, query: str) -> dict[str, Any]:
    """What `_skill_list.html` shows of the workspace: every skill (those the filter
    `query` does not match are hidden, so a drag still orders them all), their problems
    for the picker's `choice`."""
    return {"skills": workspace.skills, "problem_counts": problem_counts(workspace, choice),
            "q": query, "shown": frozenset(find_skills(workspace.skills, query))}


def skill_list_response(agent: str, data: Any, *, status: int = 200,
                        order_error: str | None = None) -> Response:
    """The skill list, filtered by the request's `q`, for htmx; otherwise a 303 to the
    editor of `current` (or of the agent's first skill), the filter and picker kept."""
    current = data.get("current") or (request.view_args or {}).get("d_tag") or ""
    workspace = store.load_workspace(get_session(), agent)
    choice, _ = picker_choice(data, workspace)
    args, query = choice_args(choice, workspace), filter_query(data)
    if not wants_fragment():
        if not current:
            return redirect(url_for("editor.agent", agent=agent, **args), 303)
        return redirect(url_for("editor.edit", agent=agent, d_tag=current, q=query or None,
                                **args), 303)
    return page_or_fragment("editor.html", "_skill_list.html", status, agent=agent,
                            current=current, choice_args=args, order_error=order_error,
                            **list_context(workspace, choice, query))


def skill_list_changed(agent: str, data: Any) -> Response:
    """After a reorder or toggle: the new list for htmx (and a preview refresh), else a redirect."""
    response = skill_list_response(agent, data)
    if wants_fragment():
        # The saved workspace changed: the form listens for this and refreshes the preview.
        response.headers["HX-Trigger"] = "workspace-changed"
    return response
