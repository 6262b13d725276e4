"""The web app's blueprints, registered on an app by `register(app)`.

Blueprints import the helper and view modules of this package (`responses`, `forms`,
`preview`, ...), never each other and never `webapp.app`.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app, g
from jinja2 import FileSystemBytecodeCache
from werkzeug.exceptions import Conflict, NotFound, UnprocessableEntity

from webapp import store
from webapp.bounds import deadlines
from webapp.render import code_spans
from webapp.schema.skill_columns import DESCRIPTION_LENGTH
from webapp.views import panels
from webapp.views.activity import who

from . import (
    access,
    accounts,
    activity,
    agent_preview,
    agents,
    api,
    api_keys,
    api_mcp,
    catalogue,
    compression,
    editor,
    forms,
    frontmatter,
    help,
    history,
    items,
    log,
    nostr,
    pipeline_steps,
    problems,
    public_files,
    publish,
    responses,
    security,
    skill_files,
    skills,
    snapshots,
    transfer,
    trash,
    uses,
    webhooks,
)

BLUEPRINTS = (accounts.bp, agents.bp, editor.bp, skills.bp, agent_preview.bp, log.bp, history.bp,
              trash.bp, transfer.bp, help.bp, uses.bp, activity.bp, publish.bp, snapshots.bp,
              api.bp, api_mcp.bp, api_keys.bp, webhooks.bp, nostr.bp, pipeline_steps.bp,
              skill_files.bp, catalogue.bp, frontmatter.bp, public_files.bp)


def not_found(exc: store.NotFound | NotFound) -> Any:
    """Nothing at this address (no route, or a missing agent, skill or item, whichever
    blueprint asked the store) is a 404 page; but an address ending in `/` first goes to
    the address without it, if a route takes that one."""
    if isinstance(exc, store.NotFound):
        exc = NotFound(description=f"There is {exc}.")
    if problems.wanted():
        return problems.of_http_error(exc)
    return responses.without_slash() or security.error_page(exc)


def conflict(exc: store.Conflict) -> Any:
    """A write that met another one (a route without a conflict page of its own) is a 409:
    nothing was written."""
    return security.error_page(Conflict(description=f"Not saved: {exc}. Reload and try again."))


def invalid(exc: store.ValidationError) -> Any:
    """What the store's rules refuse, where a route shows no form for it, is a 422."""
    reasons = "; ".join(f"{field}: {message}" for field, message in exc.problems[:20])
    return security.error_page(UnprocessableEntity(description=f"Nothing was saved: {reasons}"))


def _start_work_budget() -> None:
    if not problems.wanted():  # a page's process warms the pool; the API's starts it on demand
        deadlines.warm()
    g.work_budget = deadlines.request_budget(current_app.config["UNTRUSTED_WORK_SECONDS"])


def _end_work_budget(_exc: BaseException | None) -> None:
    token = g.pop("work_budget", None)
    if token is not None:
        deadlines.end_request(token)


def register(app: Flask) -> None:
    """Install access control, the security layer, compression, the error pages and every
    blueprint on `app`."""
    # Access first: a request its user may not make is refused before anything reads it.
    access.init_app(app)
    security.init_app(app)
    # A form flag that asks for a higher role is read once the CSRF check let the form in.
    app.before_request(access.authorize_flags)
    compression.init_app(app)
    app.jinja_env.globals["shows"] = responses.shows
    app.jinja_env.globals["panel_element"] = panels.element_of
    app.jinja_env.globals["description_length"] = DESCRIPTION_LENGTH
    # `{{ revision.author | who }}`: a username, or "local" for a change made without one.
    app.jinja_env.filters["who"] = who
    # A problem's message with its `names` as code, escaped (`webapp.render.code_spans`).
    app.jinja_env.filters["code_spans"] = code_spans
    # A process's first view of a page compiles its templates (0.3 s of the Changes page's):
    # Jinja keeps the compiled code in a folder of the user's own under the temporary
    # directory, checked by each template's source, so the next process loads it instead.
    app.jinja_env.bytecode_cache = FileSystemBytecodeCache()
    app.url_map.converters["id"] = forms.IdConverter
    # Rendering, highlighting and diffing of the request's untrusted text share one budget
    # of wall time (`webapp.bounds.deadlines`): past it, what is left is shown escaped.
    app.config.setdefault("UNTRUSTED_WORK_SECONDS", deadlines.REQUEST_SECONDS)
    app.before_request(_start_work_budget)
    app.teardown_request(_end_work_budget)
    app.register_error_handler(store.NotFound, not_found)
    app.register_error_handler(NotFound, not_found)
    app.register_error_handler(store.Conflict, conflict)
    app.register_error_handler(store.ValidationError, invalid)
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    items.register(app)
