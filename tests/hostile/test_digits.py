"""`²` is a digit to `str.isdigit` and no number to `int`: every number read from text goes
through one owner (`pipeline.is_digits`, `pipeline.whole_number`; the store's
`parse_integer` for a form's values), so no address, form, stored value or event read from
a relay answers 500 or crashes a command."""

from __future__ import annotations

import re
from pathlib import Path

import nostr_sdk
import pytest

from tests.support.pipeline import fixture_bundle
from webapp import store
from webapp.nostr import Kinds, agent_events, read_agent, sign
from webapp.pipeline import (
    LogFormatError,
    assemble,
    is_digits,
    load_bundle,
    parse_log_entry,
    scoped_text,
    whole_number,
)
from webapp.schema import db

PACKAGE = Path(__file__).resolve().parents[2] / "webapp"


@pytest.mark.parametrize(("text", "number"), [
    ("0", 0), ("42", 42), ("007", 7), ("123456789", 123456789), ("1234567890", None),
    ("²", None), ("١٢", None), ("", None), ("-1", None), ("+1", None), (" 1", None),
    ("1.0", None), ("4" * 5000, None),
])
def test_a_whole_number_is_ascii_digits_and_few_enough(text, number):
    assert whole_number(text) == number
    assert is_digits(text) == (text != "" and set(text) <= set("0123456789"))


def test_no_module_reads_digits_but_their_owner():
    """A bare `.isdigit()` is the `²` crash waiting: only `pipeline.untrusted` says what a
    digit is."""
    found = [f"{path.relative_to(PACKAGE)}:{n}" for path in sorted(PACKAGE.rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if ".isdigit()" in line]
    assert found == ["pipeline/untrusted.py:74"], found


@pytest.mark.parametrize("url", [
    "/agents/Simon/snapshots/compare?b=%C2%B2", "/agents/Simon/snapshots/compare?a=%C2%B2",
])
def test_a_superscript_in_an_address_is_a_404(client, simon, url):
    with client.application.app_context():
        store.publish(db.get_session(), simon, "first", 0)
    assert client.get(url).status_code == 404


def test_a_superscript_snapshot_in_the_api_is_a_404(client, simon):
    with client.application.app_context():
        session = db.get_session()
        store.publish(session, simon, "first", 0)
        token = store.api_keys.create_key(session, "k", ["read"]).token
        session.commit()
    response = client.get("/api/v1/agents/Simon/snapshots/%C2%B2",
                          headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 404


def test_a_superscript_test_index_on_approve_is_a_422(client, csrf, simon, skill_form):
    response = client.post("/agents/Simon/skills/chat/tests/approve",
                           data=skill_form("system:\nHi\n", test_scenario="admin asks about "
                                           "mentions", test_index="²"))
    assert response.status_code == 422


def test_a_stored_binding_path_of_a_superscript_is_a_diagnostic(app, client, simon):
    """Stored, it is read on every page of the agent: the pages answer, the assembly says
    the path does not exist."""
    with app.app_context():
        session = db.get_session()
        store.update_variable(session, simon, "agent_npub", path="list.²")
        session.commit()
        workspace = store.load_workspace(session, simon)
    context = assemble(workspace, "admin asks about mentions")
    assert any("does not exist" in d.message for d in context.diagnostics)
    for url in ("/agents/Simon/skills/chat", "/agents/Simon/preview", "/agents/Simon/changes"):
        assert client.get(url).status_code == 200, url


def test_a_stored_message_scope_of_a_superscript_reads_no_part():
    """A scope written into a database or a bundle before the rule: no part, no crash."""
    context = assemble(store_free_workspace(), None)
    assert scoped_text(context, "message:²") is None


def store_free_workspace():
    """One skill, one scenario, no database."""
    return load_bundle(fixture_bundle({"skills": [{"d_tag": "a", "content": "system:\nHi\n"}]}))


def test_a_log_entry_whose_message_size_is_a_superscript_is_refused():
    entry = assemble(store_free_workspace(), None).log_entry
    broken = re.sub(r"(messages system):\d+", r"\1:²", entry, count=1)
    assert broken != entry
    with pytest.raises(LogFormatError):
        parse_log_entry(broken)


def test_an_adoption_list_tag_of_a_superscript_is_a_problem_not_a_crash():
    keys = nostr_sdk.Keys.parse("0" * 63 + "3")
    pubkey = keys.public_key().to_hex()
    events = [sign(e, keys) for e in agent_events(store_free_workspace(), pubkey, Kinds(),
                                                  1700000000)]
    for event in events:
        if event["kind"] == Kinds().adoption:
            fields = {k: event[k] for k in ("pubkey", "created_at", "kind", "content")}
            tags = [["a", f"²:{pubkey}:a"] if t[:1] == ["a"] and t[1].startswith("3112")
                    and t[1].endswith(":a") else t for t in event["tags"]]
            events[events.index(event)] = sign({**fields, "tags": tags}, keys)
    reading = read_agent(events, pubkey, Kinds())
    assert any("bad a tag" in p.message for p in reading.problems), reading.problems


@pytest.mark.parametrize("value", ["+-5", "²", "--1", "5²"])
def test_a_form_number_that_is_not_one_is_a_problem(value):
    number, why = store.rules.parse_integer("max_array_items", value)
    assert number is None and "must be a whole number" in why


