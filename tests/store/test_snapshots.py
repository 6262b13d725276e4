"""Reading snapshots: a side (a snapshot by number, label or `latest`, or the draft), what
differs between two sides, and what an activity row changed and whether it is still there."""

from __future__ import annotations

import pytest

from webapp import store
from webapp.pipeline import assemble
from webapp.store.targets import Target, still_there, target_of


def _save(session, agent: str, d_tag: str, content: str, **fields) -> None:
    row = store.get_skill(session, agent, d_tag)
    store.save_skill(session, agent, d_tag, expected_version=row.version, content=content,
                     **fields)


@pytest.fixture
def two(session, agent) -> str:
    """`demo` published as #1 (production), then changed and published as #2
    (staging):
    chat's text changed, other disabled, intro left alone, `extra` added, a tool added."""
    store.publish(session, agent, "first", expected_latest=0)
    _save(session, agent, "chat", "system:\n{{intro}}\n\nuser:\n{{message}}\nBe brief.\n")
    store.set_skill_enabled(session, agent, "other", False)
    store.create_skill(session, agent, "extra", content="Extra.\n", triggers=["dm"])
    store.create_tool(session, agent, "clock")
    store.publish(session, agent, "second", expected_latest=1, label="staging")
    return agent


def test_a_side_is_a_snapshot_by_number_label_or_latest_or_the_draft(session, two):
    first, latest = store.read_side(session, two, "1"), store.read_side(session, two, "latest")
    assert (first.ref, first.title, first.snapshot.note) == ("1", "#1", "first")
    assert (latest.ref, latest.snapshot.number) == ("2", 2)
    assert store.read_side(session, two, "staging").snapshot.number == 2
    assert store.read_side(session, two, "production").snapshot.number == 1
    assert first.versions == {"intro": 1, "chat": 1, "other": 1}
    assert [s.d_tag for s in first.workspace.skills] == ["intro", "chat", "other"]
    draft = store.read_side(session, two, store.DRAFT)
    assert (draft.ref, draft.title, draft.snapshot) == ("draft", "the draft", None)
    assert draft.versions == {"intro": 1, "chat": 2, "other": 2, "extra": 1}
    assert [s["d_tag"] for s in draft.bundle["skills"]] == ["intro", "chat", "other", "extra"]


@pytest.mark.parametrize("ref", ["3", "0", "nope", "1" * 12, ""])
def test_an_unknown_side_is_not_found(session, two, ref):
    with pytest.raises(store.NotFound):
        store.read_side(session, two, ref)


def test_no_snapshot_of_another_agent_is_read(session, two):
    store.create_agent(session, "lonely")
    with pytest.raises(store.NotFound):
        store.read_side(session, "lonely", "1")


def test_differences_list_skills_items_settings_and_order(session, two):
    found = store.differences(store.read_side(session, two, "1"),
                              store.read_side(session, two, "2"))
    assert [(s.d_tag, s.state, s.version_before, s.version_after) for s in found.skills] == [
        ("chat", "changed", 1, 2), ("other", "changed", 1, 2), ("extra", "added", None, 1)]
    chat, other, extra = found.skills
    assert chat.text_changed and chat.fields == []
    assert "Be brief." in chat.content_after and "Be brief." not in chat.content_before
    assert not other.text_changed and other.fields == [("enabled", True, False)]
    assert (extra.content_before, extra.content_after, extra.fields) == ("", "Extra.\n", [])
    assert [(i.section, i.name, i.state) for i in found.items] == [("tools", "clock", "added")]
    assert (found.settings, found.order, found.changed) == (False, True, True)
    back = store.differences(store.read_side(session, two, "2"),
                             store.read_side(session, two, "1"))
    assert [(s.d_tag, s.state) for s in back.skills] == [
        ("chat", "changed"), ("other", "changed"), ("extra", "removed")]
    assert back.skills[2].content_after == "" and back.items[0].state == "removed"


def test_a_side_compared_with_itself_differs_in_nothing(session, two):
    side = store.read_side(session, two, "2")
    assert not store.differences(side, store.read_side(session, two, "latest")).changed
    assert not store.differences(side, store.read_side(session, two, store.DRAFT)).changed


def test_skills_compare_by_content_not_version(session, two):
    """A skill saved and saved back is the same skill, though its version moved on."""
    text = store.get_skill(session, two, "intro").content
    _save(session, two, "intro", "something else\n")
    _save(session, two, "intro", text)
    draft = store.read_side(session, two, store.DRAFT)
    assert draft.versions["intro"] == 3
    assert store.skill_difference(store.read_side(session, two, "2"), draft, "intro") is None
    change = store.skill_difference(store.read_side(session, two, "1"), draft, "chat")
    assert change is not None and change.state == "changed"
    assert store.skill_difference(store.read_side(session, two, "1"), draft, "ghost") is None


def test_settings_changes_are_found(session, two):
    store.update_agent(session, two, title="A new title")
    found = store.differences(store.read_side(session, two, "2"),
                              store.read_side(session, two, store.DRAFT))
    assert (found.settings, found.skills, found.order) == (True, [], False)


# -- what an activity row changed


def _targets(session, agent: str) -> list[tuple[str, Target | None]]:
    """Each of the agent's rows, oldest first, as its kind and target."""
    return [(row.kind, target_of(row))
            for row in reversed(store.list_activity(session, agent=agent, limit=100))]


def test_each_kind_of_row_names_its_target(session, two):
    store.log_context(session, two, assemble(store.load_workspace(session, two)))
    store.webhooks.add_webhook(session, two, "https://hooks.example.com/in")
    store.update_agent(session, two, title="T")
    store.reorder_skills(session, two, ["extra", "intro", "chat", "other"])
    agent_id = store.get_agent(session, two).id
    found = {(kind, target.kind if target else None, target.key if target else None)
             for kind, target in _targets(session, two)}
    assert found >= {
        ("agent.create", "settings", ""), ("skill.create", "skill", "chat"),
        ("skill.save", "skill", "chat"), ("skill.toggle", "skill", "other"),
        ("tool.create", "tool", "clock"), ("publish", "snapshot", "1"),
        ("publish", "snapshot", "2"), ("label.move", "snapshot", "1"),
        ("label.move", "snapshot", "2"), ("log.append", "log", "1"),
        ("webhook.add", "webhook", "1"), ("agent.settings", "settings", ""),
        ("skill.reorder", None, None)}
    assert all(t.agent_id == agent_id for _, t in _targets(session, two) if t is not None)


def test_still_there_keeps_only_what_exists(session, two):
    store.create_scenario(session, two, "hello")
    store.webhooks.add_webhook(session, two, "https://hooks.example.com/in")
    store.delete_skill(session, two, "extra")  # in the trash: its history is still there
    store.delete_tool(session, two, "clock")
    store.webhooks.remove_webhook(session, two, 1)
    store.rename_skill(session, two, "other", "another")
    agent_id = store.get_agent(session, two).id
    asked = [Target(agent_id, kind, key) for kind, key in (
        ("skill", "extra"), ("skill", "chat"), ("skill", "other"), ("skill", "another"),
        ("tool", "clock"), ("scenario", "hello"), ("variable", "nope"),
        ("snapshot", "2"), ("snapshot", "3"), ("webhook", "1"), ("log", "1"),
        ("settings", ""))]
    there = still_there(session, [*asked, Target(agent_id + 1, "skill", "chat")])
    assert {(t.kind, t.key) for t in there} == {
        ("skill", "extra"), ("skill", "chat"), ("skill", "another"), ("scenario", "hello"),
        ("snapshot", "2"), ("settings", "")}


def test_rows_of_deleted_things_and_purged_agents_name_nothing(session, two):
    store.create_tool(session, two, "gone")
    store.delete_tool(session, two, "gone")
    store.log_context(session, two, assemble(store.load_workspace(session, two)))
    store.clear_log(session, two)
    kinds = {kind: target for kind, target in _targets(session, two)}
    assert kinds["tool.delete"] is None and kinds["log.clear"] is None
    store.delete_agent(session, two)
    store.purge_agent(session, two)
    assert all(target_of(row) is None
               for row in store.list_activity(session, agent=two, limit=100))
