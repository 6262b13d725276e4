"""The "where used" page: everywhere an agent uses a name, and what the name is.

`{{name}}` in the skills' text and template sections (with line numbers linking to the
editor), the template sections and bindings that call it as a tool, and whether it is a
skill, a binding, a built-in, a mock tool or unknown: `pipeline.where_used` answers,
this blueprint only parses the request and renders.
"""

from __future__ import annotations

from flask import Blueprint, Response, request

from webapp import store
from webapp.pipeline import WhereUsed, where_used

from .access import requires
from .forms import load_workspace
from .responses import page_or_fragment

bp = Blueprint("uses", __name__)


@bp.get("/agents/<agent>/uses")
@requires("viewer")
def show(agent: str) -> Response:
    """Where `name` is used in the agent's skills, template sections and bindings."""
    workspace = load_workspace(agent)
    name = request.args.get("name", "")
    if len(name) > store.NAME_LENGTH:
        # No skill, binding or tool has such a name; say so without echoing it.
        error = (f"name: must be at most {store.NAME_LENGTH} characters, "
                 f"not {len(name)}; no skill, binding or tool name is longer")
        return uses_response(agent, "", None, error, 422)
    return uses_response(agent, name, where_used(workspace, name) if name else None)


def uses_response(agent: str, name: str, found: WhereUsed | None, error: str | None = None,
                  status: int = 200) -> Response:
    """The page (search box and report) or, for htmx, the report alone."""
    return page_or_fragment("uses.html", "_uses.html", status, agent=agent, name=name,
                            found=found, error=error, name_length=store.NAME_LENGTH)
