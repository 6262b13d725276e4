"""Renaming a tool or a binding with what uses it, and a skill save with a new d_tag: one
transaction each, all or nothing."""

from __future__ import annotations

import pytest

from webapp import store
from webapp.schema import models
from webapp.store import renames


@pytest.fixture
def tooled(session, agent) -> str:
    """`demo` with a tool `lookup`, bindings `found` and `also` calling it, a skill `uses`
    writing `{{lookup}}`, and `calls` calling it from a template section."""
    store.create_tool(session, agent, "lookup", result={"success": True, "content": "x"})
    store.create_variable(session, agent, "found", tool="lookup")
    store.create_variable(session, agent, "also", tool="lookup", path="a")
    store.create_skill(session, agent, "uses", content="Direct: {{lookup}} and {{found}}.\n")
    store.create_skill(session, agent, "calls", content=(
        "---template---\nsections:\n- tool: lookup\n  heading: Found\n---template---\n"))
    return agent


def state(session, agent: str) -> dict:
    """Everything a rename may touch: tools, bindings, skills with versions, revisions."""
    session.expire_all()
    return {
        "tools": [t.name for t in store.list_tools(session, agent)],
        "variables": [(v.name, v.tool) for v in store.list_variables(session, agent)],
        "skills": [(s.d_tag, s.version, s.content) for s in store.list_skills(session, agent)],
        "revisions": {s.d_tag: len(store.list_revisions(session, agent, s.d_tag))
                      for s in store.list_skills(session, agent)},
    }


def test_rename_tool_takes_bindings_and_skills_along(session, tooled):
    before = state(session, tooled)
    renamed = store.rename_tool(session, tooled, "lookup", "search", description="Finds.")
    assert renamed.item.name == "search" and renamed.item.description == "Finds."
    assert renamed.bindings == ("found", "also")
    assert renamed.skills == ("uses", "calls")
    after = state(session, tooled)
    assert after["variables"] == [("found", "search"), ("also", "search")]
    skills = {d_tag: (version, content) for d_tag, version, content in after["skills"]}
    assert skills["uses"][1] == "Direct: {{search}} and {{found}}.\n"
    assert "- tool: search\n" in skills["calls"][1]
    # Each changed skill is one new version; the others are left alone.
    old = {d_tag: version for d_tag, version, _ in before["skills"]}
    assert {d_tag: v for d_tag, (v, _) in skills.items()} == {
        **old, "uses": old["uses"] + 1, "calls": old["calls"] + 1}
    note = store.list_revisions(session, tooled, "uses")[0].note
    assert note == "tool lookup renamed to search"


def test_rename_variable_rewrites_the_skills_that_use_it(session, tooled):
    renamed = store.rename_variable(session, tooled, "found", "hit")
    assert (renamed.item.name, renamed.bindings, renamed.skills) == ("hit", (), ("uses",))
    assert store.get_skill(session, tooled, "uses").content == (
        "Direct: {{lookup}} and {{hit}}.\n")
    assert store.list_revisions(session, tooled, "uses")[0].note == (
        "variable found renamed to hit")


def test_rename_to_the_same_name_is_an_update(session, tooled):
    before = state(session, tooled)
    renamed = store.rename_tool(session, tooled, "lookup", "lookup", description="Same.")
    assert renamed == store.RenamedItem(renamed.item) and renamed.item.description == "Same."
    assert state(session, tooled) == before


def test_a_rename_that_makes_a_binding_invalid_changes_nothing(session, tooled):
    # A binding saved before today's rules (its name is not one a form would accept).
    agent_id = store.get_agent(session, tooled).id
    session.add(models.Variable(agent_id=agent_id, name="bad name", tool="lookup", position=9))
    session.commit()
    before = state(session, tooled)
    with pytest.raises(store.ValidationError) as caught:
        store.rename_tool(session, tooled, "lookup", "search")
    assert "name" in caught.value.errors
    assert state(session, tooled) == before


def test_a_rename_whose_skill_cannot_be_saved_changes_nothing(session, tooled, monkeypatch):
    save = renames.save
    calls = []

    def second_fails(*args, **kwargs):
        calls.append(args[1].d_tag)
        if len(calls) == 2:
            raise store.ValidationError([("content", "cannot be saved")])
        return save(*args, **kwargs)

    monkeypatch.setattr(renames, "save", second_fails)
    before = state(session, tooled)
    with pytest.raises(store.ValidationError):
        store.rename_tool(session, tooled, "lookup", "search")
    assert calls == ["uses", "calls"]  # the first skill had been saved, and is rolled back
    assert state(session, tooled) == before


def test_a_rename_that_meets_a_skill_saved_meanwhile_changes_nothing(
        session, session_factory, tooled, monkeypatch):
    renamed_uses = renames.renamed_uses

    def saved_meanwhile(*args, **kwargs):
        with session_factory() as other:
            row = store.get_skill(other, tooled, "uses")
            store.save_skill(other, tooled, "uses", expected_version=row.version,
                             content=row.content + "meanwhile\n")
        return renamed_uses(*args, **kwargs)

    monkeypatch.setattr(renames, "renamed_uses", saved_meanwhile)
    with pytest.raises(store.Conflict) as caught:
        store.rename_tool(session, tooled, "lookup", "search")
    assert caught.value.d_tag == "uses"
    after = state(session, tooled)
    assert after["tools"][-1] == "lookup" and ("found", "lookup") in after["variables"]
    assert store.get_skill(session, tooled, "uses").content.endswith("meanwhile\n")


def test_a_rename_to_a_taken_name_changes_nothing(session, tooled):
    store.create_tool(session, tooled, "other")
    before = state(session, tooled)
    with pytest.raises(store.AlreadyExists):
        store.rename_tool(session, tooled, "lookup", "other")
    assert state(session, tooled) == before


def test_save_with_a_new_d_tag_is_one_transaction(session, agent):
    row = store.get_skill(session, agent, "intro")
    saved = store.save_skill(session, agent, "intro", expected_version=row.version,
                             content="I am about.\n", new_d_tag="about")
    # One revision: the rename and the new text together, noting what was rewritten.
    assert (saved.d_tag, saved.version, saved.content) == ("about", 2, "I am about.\n")
    revision = max(store.list_revisions(session, agent, "about"), key=lambda r: r.version)
    assert revision.version == 2
    assert revision.note == "renamed from intro; references rewritten in chat, other"
    assert "{{about}}" in store.get_skill(session, agent, "chat").content

    before = state(session, agent)
    with pytest.raises(store.ValidationError):  # the rename is fine, the save is not
        store.save_skill(session, agent, "about", expected_version=2, content="x",
                         layer=7, new_d_tag="intro")
    assert state(session, agent) == before
    with pytest.raises(store.Conflict):
        store.save_skill(session, agent, "about", expected_version=1, content="x",
                         new_d_tag="intro")
    assert state(session, agent) == before
