"""Skills: versions and revisions, conflicts, rename, trash, order."""

from __future__ import annotations

import pytest

from webapp import store


def test_every_save_is_a_new_version_with_a_revision(session, agent):
    saved = store.save_skill(session, agent, "chat", expected_version=1, content="v2\n",
                             note="second")
    saved = store.save_skill(session, agent, "chat", expected_version=saved.version,
                             content="v3\n", triggers=["dm", "cron"])

    assert saved.version == 3
    revisions = store.list_revisions(session, agent, "chat")
    assert [(r.version, r.content, r.note) for r in revisions] == [
        (3, "v3\n", None), (2, "v2\n", "second"),
        (1, "system:\n{{intro}}\n\nuser:\n{{message}}\n", None)]
    assert revisions[0].triggers == ["dm", "cron"]
    assert revisions[1].triggers == ["dm"], "metadata is kept per revision"
    assert store.get_skill(session, agent, "chat").content == "v3\n"


def test_save_keeps_metadata_not_given(session, agent):
    store.save_skill(session, agent, "intro", expected_version=1, content="new")
    skill = store.get_skill(session, agent, "intro")
    assert (skill.name, skill.layer, skill.triggers, skill.enabled) == ("Intro", 2, [], True)


def test_stale_save_raises_conflict_with_both_texts_and_writes_nothing(session, agent):
    store.save_skill(session, agent, "chat", expected_version=1, content="from tab A")

    with pytest.raises(store.Conflict) as caught:
        store.save_skill(session, agent, "chat", expected_version=1, content="from tab B",
                         name="B's name")

    conflict = caught.value
    assert conflict.current["version"] == 2
    assert conflict.current["content"] == "from tab A"
    assert conflict.submitted["content"] == "from tab B"
    assert conflict.submitted["name"] == "B's name"
    assert conflict.expected_version == 1
    assert "version 2" in str(conflict)
    assert store.get_skill(session, agent, "chat").content == "from tab A"
    assert len(store.list_revisions(session, agent, "chat")) == 2


def test_save_from_a_future_version_is_a_conflict_too(session, agent):
    with pytest.raises(store.Conflict):
        store.save_skill(session, agent, "chat", expected_version=7, content="x")


def test_saving_a_skill_moved_to_the_trash_is_a_conflict(session, agent):
    store.delete_skill(session, agent, "other")
    with pytest.raises(store.Conflict) as caught:
        store.save_skill(session, agent, "other", expected_version=1, content="my edit")
    assert caught.value.current["deleted"] is True
    assert caught.value.submitted["content"] == "my edit"
    assert "trash" in str(caught.value)


def test_save_validates_with_the_bundle_rules(session, agent):
    with pytest.raises(store.ValidationError) as caught:
        store.save_skill(session, agent, "chat", expected_version=1, content="x", layer=3,
                         triggers=["dm", ""])
    assert set(caught.value.errors) == {"layer", "triggers"}
    assert store.get_skill(session, agent, "chat").version == 1


def test_create_skill_refuses_a_taken_d_tag_and_bad_names(session, agent):
    with pytest.raises(store.AlreadyExists):
        store.create_skill(session, agent, "chat")
    store.delete_skill(session, agent, "other")
    with pytest.raises(store.AlreadyExists, match="trash"):
        store.create_skill(session, agent, "other")
    with pytest.raises(store.ValidationError) as caught:
        store.create_skill(session, agent, "has space")
    assert "d_tag" in caught.value.errors
    with pytest.raises(store.NotFound):
        store.create_skill(session, "nobody", "x")


def test_rename_updates_references_with_and_without_spaces(session, agent):
    store.create_skill(session, agent, "escaped", content="literal \\{{intro}} stays")

    with pytest.raises(store.InUse) as caught:
        store.rename_skill(session, agent, "intro", "about-me")
    assert caught.value.referenced_by == ["chat", "other"]
    assert store.get_skill(session, agent, "intro").d_tag == "intro", "nothing renamed"

    renamed = store.rename_skill(session, agent, "intro", "about-me", update_references=True)

    assert renamed.updated == ("chat", "other")
    assert renamed.skill.d_tag == "about-me" and renamed.skill.version == 2
    assert store.get_skill(session, agent, "chat").content == (
        "system:\n{{about-me}}\n\nuser:\n{{message}}\n")
    assert store.get_skill(session, agent, "other").content == "Other {{ about-me }} text.\n"
    assert store.get_skill(session, agent, "escaped").content == "literal \\{{intro}} stays"
    chat_revisions = store.list_revisions(session, agent, "chat")
    assert chat_revisions[0].version == 2 and "renamed" in chat_revisions[0].note
    assert store.list_revisions(session, agent, "about-me")[0].d_tag == "about-me"
    with pytest.raises(store.NotFound):
        store.get_skill(session, agent, "intro")
    assert [s.d_tag for s in store.load_workspace(session, agent).skills] == [
        "about-me", "chat", "other", "escaped"]


def test_rename_of_an_unreferenced_skill_and_to_a_taken_name(session, agent):
    renamed = store.rename_skill(session, agent, "chat", "talk")
    assert renamed.updated == ()
    with pytest.raises(store.AlreadyExists):
        store.rename_skill(session, agent, "talk", "other")
    with pytest.raises(store.ValidationError):
        store.rename_skill(session, agent, "talk", "two words")
    with pytest.raises(store.Conflict):
        store.rename_skill(session, agent, "talk", "chat", expected_version=1)


def test_soft_delete_and_restore(session, agent):
    with pytest.raises(store.InUse) as caught:
        store.delete_skill(session, agent, "intro")
    assert caught.value.referenced_by == ["chat", "other"]

    store.delete_skill(session, agent, "other")
    store.delete_skill(session, agent, "intro", force=True)

    assert [s.d_tag for s in store.list_skills(session, agent)] == ["chat"]
    assert [s.d_tag for s in store.list_trash(session, agent)] == ["intro", "other"]
    assert [s.d_tag for s in store.load_workspace(session, agent).skills] == ["chat"]
    assert store.get_skill(session, agent, "other", include_deleted=True).deleted
    assert len(store.list_revisions(session, agent, "other")) == 1, "history of trash kept"

    restored = store.restore_skill(session, agent, "other")
    assert restored.deleted_at is None and restored.content == "Other {{ intro }} text.\n"
    assert [s.d_tag for s in store.list_skills(session, agent)] == ["chat", "other"]
    with pytest.raises(store.NotFound):
        store.restore_skill(session, agent, "chat")
    store.restore_skill(session, agent, "intro")
    assert [s.d_tag for s in store.list_skills(session, agent)] == ["intro", "chat", "other"]


def test_restore_a_revision_as_a_new_version(session, agent):
    store.save_skill(session, agent, "chat", expected_version=1, content="second", enabled=False)
    store.save_skill(session, agent, "chat", expected_version=2, content="third")

    restored = store.restore_revision(session, agent, "chat", 1, expected_version=3)

    assert restored.version == 4
    assert restored.content == "system:\n{{intro}}\n\nuser:\n{{message}}\n"
    assert restored.enabled is True
    latest = store.list_revisions(session, agent, "chat")[0]
    assert (latest.version, latest.note) == (4, "restored version 1")
    with pytest.raises(store.Conflict):
        store.restore_revision(session, agent, "chat", 2, expected_version=3)
    with pytest.raises(store.NotFound):
        store.get_revision(session, agent, "chat", 99)
    assert store.get_revision(session, agent, "chat", 2).content == "second"


def test_restoring_a_revision_keeps_the_current_d_tag(session, agent):
    store.rename_skill(session, agent, "chat", "talk")
    restored = store.restore_revision(session, agent, "talk", 1, expected_version=2)
    assert restored.d_tag == "talk"


def test_reorder_sets_the_adoption_order(session, agent):
    store.delete_skill(session, agent, "other")
    store.reorder_skills(session, agent, ["chat", "intro"])
    assert [s.d_tag for s in store.load_workspace(session, agent).skills] == ["chat", "intro"]
    store.restore_skill(session, agent, "other")
    assert [s.d_tag for s in store.list_skills(session, agent)] == ["chat", "intro", "other"]

    with pytest.raises(store.ValidationError, match="missing: other"):
        store.reorder_skills(session, agent, ["chat", "intro"])
    with pytest.raises(store.ValidationError, match="repeated: chat"):
        store.reorder_skills(session, agent, ["chat", "chat", "intro", "other"])


@pytest.mark.parametrize("order, message", [
    ("chat", "must be a list of d_tags"),
    (None, "must be a list of d_tags"),
    (["chat", 3, "other"], r"must be a list of d_tags \(text\)"),
    (["chat", "intro", "other", "x" * 500],
     r"unknown: x{40}… \(500 characters\)\)"),  # a long d_tag is cut short
    (["chat", "intro", "other", *(f"n{i}" for i in range(100_000))],
     r"unknown: n0, n1, n2, n3, n4 and 99995 more\)"),  # linear time, a short message
])
def test_reorder_refuses_what_is_not_a_permutation(session, agent, order, message):
    with pytest.raises(store.ValidationError, match=message):
        store.reorder_skills(session, agent, order)
    assert [s.d_tag for s in store.list_skills(session, agent)] == ["intro", "chat", "other"]


def test_set_enabled_is_a_saved_version(session, agent):
    skill = store.set_skill_enabled(session, agent, "chat", False)
    assert (skill.enabled, skill.version) == (False, 2)
    assert store.list_revisions(session, agent, "chat")[0].note == "disabled"
    assert store.load_workspace(session, agent).skills_by_tag["chat"].enabled is False
    with pytest.raises(store.Conflict):
        store.set_skill_enabled(session, agent, "chat", True, expected_version=1)


def test_a_long_lived_session_sees_saves_made_by_other_sessions(session_factory, agent):
    with session_factory() as first, session_factory() as second:
        assert store.get_skill(first, agent, "chat").version == 1
        store.save_skill(second, agent, "chat", expected_version=1, content="by second")
        skill = store.save_skill(first, agent, "chat", expected_version=2, content="by first")
        assert skill.version == 3
        assert store.get_skill(second, agent, "chat").content == "by first"


def test_timestamps_are_aware_utc(session, agent):
    skill = store.save_skill(session, agent, "chat", expected_version=1, content="x")
    session.expire_all()
    skill = store.get_skill(session, agent, "chat")
    assert skill.updated_at.utcoffset().total_seconds() == 0
    assert skill.updated_at >= skill.created_at
