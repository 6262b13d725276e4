"""Every route of the app with its path filled in, for the tests that visit them all (the
access table, the anonymous crawl, the hostile sweep): the routes are read from the URL
map, so a new route is visited without being listed anywhere."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from webapp import store
from webapp.pipeline import assemble, load_bundle
from webapp.schema import db

from .workspaces import RELAY_WATCH

AGENT = "Relay Watch"
#: The file the first skill of Relay Watch carries beside its SKILL.md.
FILE_PATH = "references/notes.md"
FILE_BYTES = b"# Notes\n\nA reference file.\n"


def seed(app: Any) -> dict[str, str]:
    """Relay Watch in the database with one context-log entry and snapshot #1 (changed
    since); returns the path arguments to use."""
    with app.app_context():
        session = db.get_session()
        workspace = load_bundle(RELAY_WATCH)
        store.import_bundle(session, workspace)
        entry = store.log_context(session, AGENT, assemble(workspace))
        # A webhook told of a snapshot, and a change since, so the Changes page has diffs
        # to show and the delivery log messages.
        store.webhooks.add_webhook(session, AGENT, "https://hooks.example.com/in")
        first = workspace.skills[0]
        # A file beside the first skill's SKILL.md, published, for the routes of files.
        store.save_file(session, AGENT, first.d_tag, FILE_PATH, FILE_BYTES, expected_version=1)
        store.publish(session, AGENT, "swept", expected_latest=0,
                      override="the demo keeps a known problem to show")
        store.save_skill(session, AGENT, first.d_tag, expected_version=2,
                         content=first.content + "\nChanged since published.\n")
        return {"agent": AGENT, "d_tag": first.d_tag, "version": "1", "number": "1",
                "entry_id": str(entry.id), "tool": workspace.tools[0].name,
                "variable": workspace.variables[0].name,
                "scenario": workspace.scenarios[0].name, "username": "nobody",
                "item_id": "1", "ref": "production", "key_id": "1", "webhook_id": "1",
                "message_id": "1", "step": "variables", "path": FILE_PATH,
                "sha256": hashlib.sha256(FILE_BYTES).hexdigest()}


def route_url(rule: Any, values: dict[str, str]) -> str:
    """The rule's path with its arguments taken from `values` (`seed`'s)."""
    filled = {}
    for argument in rule.arguments:
        if argument == "name":
            kind = rule.endpoint.split(".")[0]
            filled[argument] = values[{"tools": "tool", "variables": "variable",
                                       "scenarios": "scenario"}.get(kind, "tool")]
        else:
            filled[argument] = values[argument]
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: filled[m[1]], rule.rule)


def routes(app: Any, method: str) -> list[Any]:
    """The app's rules that answer `method`, static files aside, by path."""
    return sorted((rule for rule in app.url_map.iter_rules()
                   if method in rule.methods and rule.endpoint != "static"),
                  key=lambda rule: rule.rule)
