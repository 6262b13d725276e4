"""An agent on Nostr: its key, relays and kinds; publishing a snapshot, signed in the
browser; and importing an agent from relays, previewed before it is applied.

The server never holds a secret key. The publish page hands the browser the unsigned
events (`events`), a NIP-07 extension signs them (`static/nostr.js`, no inline script),
and `publish` takes them back only if they are exactly those events, signed by the
agent's key (`nostr_sync.check_signed`), before sending them to each relay and showing
what each relay said of each event. An import reads the relays (`nostr_sync`), verifies
every event, and shows the plan with the verified events in the form; applying reads
those events again (verified again: the form is the browser's) and applies the plan as
one change. The rules are `store.nostr`'s, as for `skill-editor nostr` (docs/nostr.md).
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, jsonify, make_response, request, url_for

from webapp import store
from webapp.nostr import NostrKeyError, Reading, address, npub, public_key_hex, read_agent
from webapp.outbound import nostr_sync
from webapp.pipeline import loads_json
from webapp.schema.db import get_session
from webapp.store.nostr import DROPPED, read_settings
from webapp.textdiff.lines import SHOWN_ROWS, diff_lines
from webapp.views.wording import counted

from .access import requires
from .responses import done, page_or_fragment
from .security import takes_imports

bp = Blueprint("nostr", __name__)

KIND_FIELDS = ("skill", "embedded", "adoption", "settings")


@bp.get("/agents/<agent>/nostr")
@requires("viewer")
def index(agent: str) -> Response:
    """The agent's Nostr key, relays and kinds, and publishing a snapshot to its relays."""
    return settings_response(agent)


@bp.post("/agents/<agent>/nostr")
@requires("author")
def save(agent: str) -> Response:
    """Save the agent's npub, relays (one a line) and kinds."""
    form = request.form
    try:
        kinds = {name: int(form.get(f"kind_{name}", "") or "0") for name in KIND_FIELDS}
    except ValueError:
        return settings_response(agent, 422, errors={"kinds": "kinds are whole numbers"},
                                 values=form)
    try:
        settings = read_settings(form.get("npub", ""), form.get("relays", "").splitlines(),
                                 kinds)
        store.nostr.set_nostr(get_session(), agent, settings)
    except store.ValidationError as exc:
        return settings_response(agent, 422, errors=exc.errors, values=form)
    return done(f"Saved the Nostr settings of {agent}.", url_for("nostr.index", agent=agent))


@bp.get("/agents/<agent>/nostr/events")
@requires("reviewer")
def events(agent: str) -> Response:
    """The unsigned events of a snapshot (`?snapshot=N`, else the production label's), to
    be signed."""
    try:
        prepared = _prepared(agent)
    except store.ValidationError as exc:
        return make_response(jsonify(problems=[message for _, message in exc.problems]), 422)
    return jsonify(source=prepared.source, pubkey=prepared.settings.pubkey,
                   events=prepared.events)


@bp.post("/agents/<agent>/nostr/publish")
@takes_imports
@requires("reviewer")
def publish(agent: str) -> Response:
    """Send the signed events of a snapshot to the agent's relays; the report of what each
    relay said of each event."""
    try:
        body = loads_json(request.get_data(as_text=True))
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return _report(agent, 400, problems=["send JSON: {\"snapshot\": N, \"events\": [...]}"])
    try:
        prepared = _prepared(agent, body.get("snapshot"))
    except store.ValidationError as exc:
        return _report(agent, 422, problems=[message for _, message in exc.problems])
    problems = nostr_sync.check_signed(prepared, body.get("events"))
    if not prepared.settings.relays:
        problems.append(f"{agent} has no relays: add one above")
    if problems:
        return _report(agent, 422, problems=problems)
    signed = body["events"]
    outcomes = nostr_sync.send(list(prepared.settings.relays), signed,
                               prepared.settings.pubkey, prepared.settings.kinds)
    accepted = sum(1 for outcome in outcomes if outcome.status in nostr_sync.HELD)
    store.nostr.record_publish(get_session(), agent, prepared.source,
                               len(prepared.settings.relays), accepted, len(outcomes))
    kinds = {event["id"]: event["kind"] for event in signed}
    return _report(agent, 200, outcomes=outcomes, kinds=kinds, source=prepared.source,
                   accepted=accepted)


def _prepared(agent: str, snapshot: Any = None) -> nostr_sync.Prepared:
    """The events of the snapshot the body or `?snapshot=` names (a number or a label,
    read by `store.resolve`), else of the `production` label's."""
    ref = snapshot if snapshot is not None else request.args.get("snapshot")
    return nostr_sync.events_to_sign(get_session(), agent,
                                     store.labels.PRODUCTION if ref in (None, "") else str(ref))


def _report(agent: str, status: int, **context: Any) -> Response:
    return page_or_fragment("nostr_report.html", "_nostr_report.html", status, agent=agent,
                            **context)


def settings_response(agent: str, status: int = 200, **context: Any) -> Response:
    session = get_session()
    row = store.get_agent(session, agent)
    settings = store.nostr.settings_of(row)
    return page_or_fragment(
        "nostr.html", "_nostr.html", status, agent=row.name, settings=settings,
        npub=npub(settings.pubkey) if settings.pubkey else "",
        snapshots=store.list_snapshots(session, row.name),
        served=store.labelled_or_none(session, row),
        authors={d: npub(key) for d, key in store.nostr.skill_authors(session, row.name).items()},
        errors=context.pop("errors", {}), values=context.pop("values", None), **context)


@bp.get("/nostr/import")
@requires("viewer")
def import_form() -> Response:
    """The form that reads an agent from relays."""
    return _import_response(200)


@bp.post("/nostr/import")
@requires("author")
def preview() -> Response:
    """Read the agent an npub or naddr names from the relays given, verify every event,
    and show what importing it would change (nothing is changed yet)."""
    form = request.form
    name = form.get("agent_name", "").strip() or None
    urls = [url.strip() for url in form.get("relays", "").splitlines() if url.strip()]
    try:
        where = address(form.get("address", ""))
        urls = urls or list(where.relays)
        if not urls:
            return _import_response(422, values=form, errors={"relays": "give a relay"})
        urls = store.nostr.check_relays(urls)
    except NostrKeyError as exc:
        return _import_response(422, values=form, errors={"address": str(exc)})
    except store.ValidationError as exc:
        return _import_response(422, values=form, errors=exc.errors)
    kinds = nostr_sync.import_kinds(get_session(), name)
    fetched = nostr_sync.fetch_agent(where, urls, kinds, agent_name=name,
                                     session=get_session())
    return _plan_response(fetched.reading, form, answers=fetched.answers, relays=urls)


@bp.post("/nostr/import/apply")
@takes_imports
@requires("author")
def apply() -> Response:
    """Apply an import shown by the preview: its events are verified again, and the
    skills ticked as no longer adopted go to the trash."""
    form = request.form
    name = form.get("agent_name", "").strip() or None
    try:
        events_sent = loads_json(form.get("events", ""))
    except ValueError:
        events_sent = None
    if not isinstance(events_sent, list) or len(events_sent) > nostr_sync.MAX_FILE_EVENTS:
        return _import_response(400, values=form,
                                errors={"events": "the import's events did not come back"})
    try:
        pubkey = public_key_hex(form.get("pubkey", ""))
    except NostrKeyError as exc:
        return _import_response(400, values=form, errors={"address": str(exc)})
    kinds = nostr_sync.import_kinds(get_session(), name)
    reading = nostr_sync.with_folders(read_agent(events_sent, pubkey, kinds, agent_name=name),
                                      get_session())
    if reading.blocked or reading.workspace is None:
        return _plan_response(reading, form)
    relay_urls = [url for url in form.get("relays", "").splitlines() if url.strip()]
    try:
        row, plan = store.nostr.apply_import(
            get_session(), reading.workspace, reading.authors, pubkey=reading.pubkey,
            relays=relay_urls, trash=form.getlist("trash"))
    except (store.ValidationError, store.AlreadyExists) as exc:
        return _plan_response(reading, form, store_problems=exc.problems)
    changed = plan.count(store.nostr.NEW) + plan.count(store.nostr.CHANGED)
    return done(f"Imported {row.name} from Nostr: {counted(changed, 'skill')} new or changed, "
                f"{counted(len(form.getlist('trash')), 'skill')} moved to the trash.",
                url_for("editor.agent", agent=row.name))


def _plan_response(reading: Reading, form: Any, **context: Any) -> Response:
    plan = None
    problems = list(context.pop("store_problems", []))
    if not reading.blocked and reading.workspace is not None and not problems:
        try:
            plan = store.nostr.plan_import(get_session(), reading.workspace, reading.authors)
        except (store.ValidationError, store.AlreadyExists) as exc:
            problems = exc.problems
    diffs = {change.d_tag: diff_lines(change.before.content if change.before else "",
                                      change.after.content if change.after else "",
                                      limit=SHOWN_ROWS)
             for change in (plan.skills if plan else []) if change.status != "unchanged"}
    status = 200 if plan is not None else 422
    return _import_response(status, values=form, reading=reading, plan=plan, diffs=diffs,
                            store_problems=problems, dropped=DROPPED,
                            events_json=json.dumps(reading.used, ensure_ascii=False),
                            npubs={key: npub(key) for key in {*reading.authors.values(),
                                                              reading.pubkey} if key},
                            **context)


def _import_response(status: int, **context: Any) -> Response:
    context.setdefault("errors", {})
    return page_or_fragment("nostr_import.html", "_nostr_import.html", status, **context)
