"""The agents: the home page that lists them, a new agent, an agent's settings, and the
agents' trash (delete, restore, delete for good).

Routes parse the form, call the store (which owns every rule an agent must obey) and
render; what the list shows comes from `agent_views`.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request, url_for

from webapp import store
from webapp.nostr import npub
from webapp.schema.db import get_session
from webapp.views.agents import AgentForm, agent_rows, parse_agent_form

from .access import ADMIN, can, requires
from .responses import done, page_or_fragment

bp = Blueprint("agents", __name__)


@bp.get("/")
@requires("viewer")
def index() -> Response:
    """The agents with their skill counts, last change and problems, and the trash."""
    session = get_session()
    return page_or_fragment("index.html", "_agents.html", agents=agent_rows(session),
                            trash=store.list_agent_trash(session))


@bp.get("/new-agent")
@requires("author")
def new() -> Response:
    """The form for a new, empty agent."""
    return form_response(AgentForm.blank(), "new")


@bp.post("/new-agent")
@requires("author")
def create() -> Response:
    """Create the agent and open its page; a refused form comes back with what was typed."""
    form = parse_agent_form(request.form)
    if not form.errors:
        try:
            agent = store.create_agent(get_session(), **form.fields)
        except (store.ValidationError, store.AlreadyExists) as exc:
            form.errors.update(dict(exc.problems))
        else:
            return done(f"Created the agent {agent.name}.",
                        url_for("editor.agent", agent=agent.name))
    return form_response(form, "new", 422)


@bp.get("/agents/<agent>/settings")
@requires("viewer")
def settings(agent: str) -> Response:
    """The agent's settings: name, title template, message mode, array limit, labels."""
    row = store.get_agent(get_session(), agent)
    return form_response(AgentForm.of(row), "settings", agent=row.name)


@bp.post("/agents/<agent>/settings")
@requires("author")
def update(agent: str) -> Response:
    """Save the settings; a new name moves every page of the agent to it."""
    session = get_session()
    row = store.get_agent(session, agent)
    form = parse_agent_form(request.form)
    if not form.errors:
        try:
            clients = {} if form.clients is None else {"skill_clients": list(form.clients)}
            saved = store.update_agent(session, row, **form.fields, **clients)
        except (store.ValidationError, store.AlreadyExists) as exc:
            form.errors.update(dict(exc.problems))
        else:
            renamed = f" (renamed from {agent})" if saved.name != agent else ""
            return done(f"Saved the settings of {saved.name}{renamed}.",
                        url_for("agents.settings", agent=saved.name))
    return form_response(form, "settings", 422, agent=agent)


@bp.get("/agents/<agent>/delete")
@requires("admin")
def confirm_delete(agent: str) -> Response:
    """Ask before moving the agent to the trash."""
    row = store.get_agent(get_session(), agent)
    return page_or_fragment("agent_delete.html", "_agent_delete.html", agent=row.name,
                            skills=len(store.list_skills(get_session(), row)))


@bp.post("/agents/<agent>/delete")
@requires("admin")
def delete(agent: str) -> Response:
    """Move the agent, with everything it holds, to the trash."""
    row = store.delete_agent(get_session(), agent)
    return done(f"Moved the agent {row.name} to the trash; restore it below.",
                url_for("agents.index"))


@bp.post("/agent-trash/<name>/restore")
@requires("admin")
def restore(name: str) -> Response:
    """Bring an agent back from the trash."""
    row = store.restore_agent(get_session(), name)
    return done(f"Restored the agent {row.name}.", url_for("editor.agent", agent=row.name))


@bp.get("/agent-trash/<name>/purge")
@requires("admin")
def confirm_purge(name: str) -> Response:
    """Ask before deleting an agent in the trash for good."""
    row = next((a for a in store.list_agent_trash(get_session()) if a.name == name), None)
    if row is None:
        raise store.NotFound(f"no agent {name!r} in the trash")
    return page_or_fragment("agent_purge.html", "_agent_purge.html", name=row.name)


@bp.post("/agent-trash/<name>/purge")
@requires("admin")
def purge(name: str) -> Response:
    """Delete an agent in the trash for good: its skills, history and context log too."""
    store.purge_agent(get_session(), name)
    return done(f"Deleted the agent {name} for good.", url_for("agents.index"))


def form_response(form: AgentForm, mode: str, status: int = 200, **context: Any) -> Response:
    """The new-agent or settings form (`mode`), with the author's values and any errors."""
    page = "agent_new.html" if mode == "new" else "agent_settings.html"
    if mode != "new":
        pubkey = store.nostr.nostr_settings(get_session(), context["agent"]).pubkey
        context["nostr_npub"] = npub(pubkey) if pubkey else ""
    if mode != "new" and can(ADMIN):
        context["webhooks"] = store.webhooks.list_webhooks(get_session(), context["agent"])
    return page_or_fragment(page, "_agent_form.html", status, form=form, mode=mode, **context)
