"""The store's rules: one owner for what every write path must obey."""

from __future__ import annotations

import pytest

from webapp import store
from webapp.schema import models, skill_columns
from webapp.store import rules


def test_column_lengths_come_from_the_models():
    assert rules.COLUMN_LENGTHS["skills"] == {"d_tag": models.NAME_LENGTH,
                                              "name": models.NAME_LENGTH,
                                              "description": skill_columns.DESCRIPTION_LENGTH,
                                              "nostr_author": 64}
    assert rules.COLUMN_LENGTHS["agent"]["message_mode"] == 20
    assert "content" not in rules.COLUMN_LENGTHS["skills"]  # text: no bound


@pytest.mark.parametrize("section, item, expected", [
    ("skills", {"d_tag": "x" * 300}, ("d_tag", "must be at most 200 characters, not 300")),
    ("tools", {"name": "t" * 201}, ("name", "must be at most 200 characters, not 201")),
    ("agent", {"name": "a/b"},
     ("name", "must not contain '/' (the agent's pages could not be addressed)")),
    ("scenarios", {"name": "s", "message": "nul \x00"},
     ("message", "must not contain NUL characters (U+0000)")),
])
def test_item_problems(section, item, expected):
    assert expected in store.item_problems(section, item)


def test_bundle_problems_have_json_paths(full_bundle):
    full_bundle["skills"][1]["d_tag"] = "x" * 300
    full_bundle["tools"][0]["results_by_args"][0]["args"] = {"q": "\x00"}  # JSON: stored escaped
    full_bundle["variables"][0]["tool"] = "t" * 201
    assert store.bundle_problems(full_bundle) == [
        ("$.skills[1].d_tag", "must be at most 200 characters, not 300"),
        ("$.variables[0].tool", "must be at most 200 characters, not 201"),
    ]
    assert store.bundle_problems(full_bundle, agent_name="x/y")[0] == (
        "agent_name", "must not contain '/' (the agent's pages could not be addressed)")


@pytest.mark.parametrize("write, field", [
    (lambda s: store.create_skill(s, "demo", "x" * 300), "d_tag"),
    (lambda s: store.create_skill(s, "demo", "ok", name="n" * 201), "name"),
    (lambda s: store.create_tool(s, "demo", "t" * 201), "name"),
    (lambda s: store.create_variable(s, "demo", "v", tool="t" * 201), "tool"),
    (lambda s: store.create_scenario(s, "demo", "sc", provider="p" * 201), "provider"),
    (lambda s: store.create_agent(s, "a/b"), "name"),
    (lambda s: store.update_agent(s, "demo", name="a/b"), "name"),
])
def test_every_write_applies_the_rules(session, agent, write, field):
    with pytest.raises(store.ValidationError) as caught:
        write(session)
    assert field in caught.value.errors
    assert [a.name for a in store.list_agents(session)] == ["demo"]
    assert store.load_workspace(session, "demo").tools == ()


def test_import_refuses_what_the_database_cannot_store(session, full_bundle):
    full_bundle["skills"][0]["d_tag"] = "d" * 300
    full_bundle["agent"]["name"] = "a/b"
    with pytest.raises(store.ValidationError) as caught:
        store.import_bundle(session, full_bundle)
    assert caught.value.problems == [
        ("$.agent.name", "must not contain '/' (the agent's pages could not be addressed)"),
        ("$.skills[0].d_tag", "must be at most 200 characters, not 300"),
    ]
    assert store.list_agents(session) == []
