"""Who did what: every kind of change records its actor, a refused change records nothing,
and the record is read back filtered and paged."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import func, select

from tests.support.bundles import FULL_BUNDLE
from webapp import agentskills, store
from webapp.pipeline import Skill, assemble
from webapp.schema import models


@pytest.fixture
def workspace(session, agent) -> str:
    """The `agent` fixture's demo (intro, chat and other use `{{intro}}`) with a tool
    `lookup`, a binding `found` to it that chat uses, a scenario `hello`, a log entry,
    and intro at version 2; all made in the local mode."""
    store.create_tool(session, agent, "lookup", result={"success": True, "content": "x"})
    store.create_variable(session, agent, "found", tool="lookup")
    chat = store.get_skill(session, agent, "chat")
    store.save_skill(session, agent, "chat", expected_version=chat.version,
                     content=chat.content + "{{found}}\n")
    store.create_scenario(session, agent, "hello", message="Hi")
    store.save_skill(session, agent, "intro", expected_version=1, content="I am intro, v2.\n")
    log(session, agent)
    return agent


def log(session, agent: str) -> models.ContextLogEntry:
    return store.log_context(session, agent, assemble(store.load_workspace(session, agent),
                                                      "hello"))


def newest(session) -> models.Activity:
    return store.list_activity(session, limit=1)[0]


def count(session, model: type[Any] = models.Activity) -> int:
    return session.scalar(select(func.count()).select_from(model))


@dataclass(frozen=True)
class Case:
    """A change made as alice, and what the record must say of it."""

    change: Callable[[Any], Any]
    kind: str
    subject: str
    detail: str = ""                     # a part of the detail
    agent: str = "demo"                  # the agent name the row keeps
    authored: tuple[str, ...] = ()       # skills whose newest revision alice must have saved
    setup: Callable[[Any], Any] = field(default=lambda session: None)


def _rename_with_edit(session: Any) -> Any:
    row = store.get_skill(session, "demo", "other")
    return store.save_skill(session, "demo", "other", expected_version=row.version,
                            content="Other edited.\n", new_d_tag="another")


PUBKEY = "a" * 64


def _imported() -> list[agentskills.SkillFolder]:
    """A new skill `pdf`, and `chat` with new text."""
    return [agentskills.SkillFolder(Skill(d_tag="pdf", content="PDFs.\n")),
            agentskills.SkillFolder(Skill(d_tag="chat", content="Chat, imported.\n"))]


CASES = {
    "agent.create": Case(lambda s: store.create_agent(s, "fresh"), "agent.create", "fresh",
                         agent="fresh"),
    "agent.settings": Case(lambda s: store.update_agent(s, "demo", title="T", model="m"),
                           "agent.settings", "demo", "title, model"),
    "agent.rename": Case(lambda s: store.update_agent(s, "demo", name="demo2"), "agent.rename",
                         "demo2", "from demo", agent="demo2"),
    "agent.delete": Case(lambda s: store.delete_agent(s, "demo"), "agent.delete", "demo"),
    "agent.restore": Case(lambda s: store.restore_agent(s, "demo"), "agent.restore", "demo",
                          setup=lambda s: store.delete_agent(s, "demo")),
    "agent.purge": Case(lambda s: store.purge_agent(s, "demo"), "agent.purge", "demo",
                        setup=lambda s: store.delete_agent(s, "demo")),
    "skill.create": Case(lambda s: store.create_skill(s, "demo", "new", content="x"),
                         "skill.create", "new", authored=("new",)),
    "skill.save": Case(lambda s: store.save_skill(s, "demo", "intro", expected_version=2,
                                                  content="changed\n", note="why"),
                       "skill.save", "intro", "version 3: why", authored=("intro",)),
    "skill.rename": Case(lambda s: store.rename_skill(s, "demo", "intro", "start",
                                                      update_references=True),
                         "skill.rename", "start", "from intro; references rewritten in chat, "
                         "other", authored=("start", "chat", "other")),
    "skill.rename (with an edit)": Case(_rename_with_edit, "skill.rename", "another",
                                        "from other", authored=("another",)),
    "skill.toggle": Case(lambda s: store.set_skill_enabled(s, "demo", "other", False),
                         "skill.toggle", "other", "disabled, version 2", authored=("other",)),
    "skill.reorder": Case(lambda s: store.reorder_skills(s, "demo", ["other", "chat", "intro"]),
                          "skill.reorder", "", "other, chat, intro"),
    "skill.delete": Case(lambda s: store.delete_skill(s, "demo", "chat"), "skill.delete",
                         "chat"),
    "skill.delete (forced)": Case(lambda s: store.delete_skill(s, "demo", "intro", force=True),
                                  "skill.delete", "intro", "still referenced by chat, other"),
    "skill.restore": Case(lambda s: store.restore_skill(s, "demo", "chat"), "skill.restore",
                          "chat", setup=lambda s: store.delete_skill(s, "demo", "chat")),
    "skill.import": Case(lambda s: store.import_skills(s, "demo", _imported()), "skill.import",
                         "", "new: 1, updated: 1, unchanged: 0", authored=("pdf", "chat")),
    "revision.restore": Case(lambda s: store.restore_revision(s, "demo", "intro", 1,
                                                              expected_version=2),
                             "revision.restore", "intro", "version 1 as version 3",
                             authored=("intro",)),
    "tool.create": Case(lambda s: store.create_tool(s, "demo", "clock"), "tool.create", "clock"),
    "tool.update": Case(lambda s: store.update_tool(s, "demo", "lookup", description="d"),
                        "tool.update", "lookup", "description"),
    "tool.update (edit form)": Case(lambda s: store.rename_tool(s, "demo", "lookup", "lookup",
                                                                result=None),
                                    "tool.update", "lookup", "result"),
    "tool.rename": Case(lambda s: store.rename_tool(s, "demo", "lookup", "search"),
                        "tool.rename", "search", "from lookup; rewrote bindings found"),
    "tool.delete": Case(lambda s: store.delete_tool(s, "demo", "lookup"), "tool.delete",
                        "lookup"),
    "variable.create": Case(lambda s: store.create_variable(s, "demo", "v", tool="lookup"),
                            "variable.create", "v"),
    "variable.update": Case(lambda s: store.update_variable(s, "demo", "found", limit=2),
                            "variable.update", "found", "limit"),
    "variable.rename": Case(lambda s: store.rename_variable(s, "demo", "found", "hit"),
                            "variable.rename", "hit", "from found; rewrote skills chat",
                            authored=("chat",)),
    "variable.delete": Case(lambda s: store.delete_variable(s, "demo", "found"),
                            "variable.delete", "found"),
    "scenario.create": Case(lambda s: store.create_scenario(s, "demo", "bye"),
                            "scenario.create", "bye"),
    "scenario.update": Case(lambda s: store.update_scenario(s, "demo", "hello", message="Yo"),
                            "scenario.update", "hello", "message"),
    "scenario.rename": Case(lambda s: store.update_scenario(s, "demo", "hello", name="hi"),
                            "scenario.rename", "hi", "from hello"),
    "scenario.delete": Case(lambda s: store.delete_scenario(s, "demo", "hello"),
                            "scenario.delete", "hello"),
    "import (new agent)": Case(lambda s: store.import_bundle(s, _bundle("Tester")), "import",
                               "Tester", "as a new agent; skills: 3, tools: 2", agent="Tester",
                               authored=("base", "main", "off")),
    "import (replace)": Case(lambda s: store.import_bundle(s, _bundle("demo"), replace=True),
                             "import", "demo", "over the existing agent; skills: 3",
                             authored=("base",)),
    "log.append": Case(lambda s: log(s, "demo"), "log.append", "#2", "scenario hello"),
    "log.delete": Case(lambda s: store.delete_log_entry(s, "demo", 1), "log.delete", "#1",
                       "scenario hello"),
    "log.clear": Case(lambda s: store.clear_log(s, "demo"), "log.clear", "", "entries removed: 1"),
    "webhook.add": Case(lambda s: store.webhooks.add_webhook(
        s, "demo", "https://hooks.example.com/in?token=secret"), "webhook.add", "#1",
        "hooks.example.com"),
    "webhook.remove": Case(lambda s: store.webhooks.remove_webhook(s, "demo", 1),
                           "webhook.remove", "#1", "hooks.example.com",
                           setup=lambda s: store.webhooks.add_webhook(
                               s, "demo", "https://hooks.example.com/in")),
    "webhook.toggle": Case(lambda s: store.webhooks.set_active(s, "demo", 1, False),
                           "webhook.toggle", "#1", "paused",
                           setup=lambda s: store.webhooks.add_webhook(
                               s, "demo", "https://hooks.example.com/in")),
    "agent.nostr": Case(lambda s: store.nostr.set_nostr(s, "demo", store.nostr.NostrSettings(
        PUBKEY, ("wss://relay.example.com",))), "agent.nostr", "demo", "relays: 1"),
    "nostr.import": Case(lambda s: store.nostr.apply_import(
        s, store.load_workspace(s, "demo"), {}, pubkey=PUBKEY), "nostr.import", "demo",
        "changed: 0"),
    "nostr.publish": Case(lambda s: store.nostr.record_publish(s, "demo", "snapshot 1", 2, 9,
                                                               10),
                          "nostr.publish", "snapshot 1", "9 of 10"),
}


def _bundle(name: str) -> dict[str, Any]:
    return {**FULL_BUNDLE, "agent": {**FULL_BUNDLE["agent"], "name": name}}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_every_kind_of_change_records_who_made_it(session, workspace, case):
    case.setup(session)
    before = count(session)
    with store.acting_as("alice"):
        case.change(session)
    assert count(session) == before + 1, "one row for the change"
    row = newest(session)
    assert (row.kind, row.subject, row.actor, row.agent_name) == (
        case.kind, case.subject, "alice", case.agent)
    assert case.detail in row.detail
    assert row.kind in store.KINDS
    for d_tag in case.authored:
        revisions = store.list_revisions(session, case.agent, d_tag)
        assert revisions[0].author == "alice", d_tag
        assert all(r.author is None for r in revisions[1:]), "older ones keep their author"


def test_the_vocabulary_is_covered_by_the_table():
    """Every kind but `publish`, `publish.override` and `label.move`
    (tests/store/test_publish.py, tests/web/test_publish_gate.py and tests/api/test_store.py
    record them) is made by a case above."""
    assert {case.kind for case in CASES.values()} == set(store.KINDS) - {
        "publish", "publish.override", "label.move"}


def test_local_changes_record_no_actor(session, workspace):
    rows = store.list_activity(session)
    assert rows and {row.actor for row in rows} == {None}
    assert store.list_revisions(session, "demo", "intro")[0].author is None
    assert store.list_log(session, "demo")[0].author is None
    with store.acting_as("bob"):
        assert log(session, "demo").author == "bob"


@pytest.mark.parametrize("change, error", [
    (lambda s: store.save_skill(s, "demo", "intro", expected_version=1, content="late"),
     store.Conflict),
    (lambda s: store.create_skill(s, "demo", "chat", content="again"), store.AlreadyExists),
    (lambda s: store.create_tool(s, "demo", "t" * 201), store.ValidationError),
    (lambda s: store.delete_skill(s, "demo", "intro"), store.InUse),
    (lambda s: store.update_agent(s, "demo", name="a/b"), store.ValidationError),
    (lambda s: store.reorder_skills(s, "demo", ["chat"]), store.ValidationError),
    (lambda s: store.restore_revision(s, "demo", "intro", 1, expected_version=1),
     store.Conflict),
    (lambda s: store.import_bundle(s, _bundle("demo")), store.AlreadyExists),
    (lambda s: store.delete_log_entry(s, "demo", 99), store.NotFound),
    (lambda s: store.purge_agent(s, "demo"), store.NotFound),  # not in the trash
], ids=["stale save", "taken d_tag", "long tool name", "skill in use", "bad agent name",
        "bad order", "stale restore", "import over", "no log entry", "purge a live agent"])
def test_a_refused_change_records_nothing(session, workspace, change, error):
    before = (count(session), count(session, models.SkillRevision))
    with store.acting_as("alice"), pytest.raises(error):
        change(session)
    assert (count(session), count(session, models.SkillRevision)) == before
    assert store.list_activity(session, actor="alice") == []


def test_a_rename_that_fails_half_way_records_nothing(session, workspace, monkeypatch):
    """The tool is renamed and its binding rewritten before the skills are saved: when a
    skill save fails, the rename and its record go together."""
    from webapp.store import renames

    def failing_save(*args, **kwargs):
        raise store.ValidationError([("content", "refused")])

    monkeypatch.setattr(renames, "save", failing_save)
    before = count(session)
    with store.acting_as("alice"), pytest.raises(store.ValidationError):
        store.rename_variable(session, "demo", "found", "hit")
    assert count(session) == before
    assert store.get_variable(session, "demo", "found")


@pytest.mark.parametrize("change", [
    lambda s: store.save_skill(s, "demo", "intro", expected_version=2,
                               content="I am intro, v2.\n"),
    lambda s: store.set_skill_enabled(s, "demo", "intro", True),
    lambda s: store.reorder_skills(s, "demo", ["intro", "chat", "other"]),
    lambda s: store.update_tool(s, "demo", "lookup", description=""),
    lambda s: store.rename_variable(s, "demo", "found", "found", result_field=""),
    lambda s: store.update_agent(s, "demo", title="{name}"),
    lambda s: store.rename_skill(s, "demo", "intro", "intro"),
    lambda s: (store.clear_log(s, "demo"), store.clear_log(s, "demo")),
], ids=["same text", "already enabled", "same order", "same tool", "same binding",
        "same settings", "same d_tag", "empty log"])
def test_a_change_that_changes_nothing_records_nothing(session, workspace, change):
    before = count(session, models.SkillRevision)
    with store.acting_as("alice"):
        change(session)
    assert [row.kind for row in store.list_activity(session, actor="alice")] in (
        [], ["log.clear"])
    assert count(session, models.SkillRevision) == before


# -- reading the record


@pytest.fixture
def history(session) -> list[models.Activity]:
    """Changes by alice, bob and the local mode to two agents, one renamed: newest first."""
    with store.acting_as("alice"):
        store.create_agent(session, "a")
        store.create_skill(session, "a", "one", content="1")
    with store.acting_as("bob"):
        store.create_agent(session, "b")
        store.create_tool(session, "b", "t")
        store.update_agent(session, "a", name="a2")
    store.create_skill(session, "a2", "two", content="2")
    return store.list_activity(session)


def test_newest_first_and_filters(session, history):
    kinds = [(row.kind, row.agent_name, row.actor) for row in history]
    assert kinds == [("skill.create", "a2", None), ("agent.rename", "a2", "bob"),
                     ("tool.create", "b", "bob"), ("agent.create", "b", "bob"),
                     ("skill.create", "a", "alice"), ("agent.create", "a", "alice")]

    def subjects(**filters):
        return [(row.kind, row.subject) for row in store.list_activity(session, **filters)]

    assert subjects(actor="alice") == [("skill.create", "one"), ("agent.create", "a")]
    assert subjects(actor=store.LOCAL) == [("skill.create", "two")]
    assert subjects(actor="nobody") == []
    # By row: the agent's rows across its rename; by name: the rows recorded under it.
    assert len(subjects(agent=store.get_agent(session, "a2"))) == 4
    assert subjects(agent="a") == [("skill.create", "one"), ("agent.create", "a")]
    assert subjects(kind="agent.create") == [("agent.create", "b"), ("agent.create", "a")]
    assert subjects(kind="skill") == [("skill.create", "two"), ("skill.create", "one")]
    assert subjects(kind="tool", actor="bob", agent="b") == [("tool.create", "t")]
    assert subjects(agent="a\x00", actor="\x00") == []


@pytest.mark.parametrize("kind", ["skill.", "nonsense", "skill.%", "%"])
def test_an_unknown_kind_is_refused(session, history, kind):
    with pytest.raises(store.ValidationError) as caught:
        store.list_activity(session, kind=kind)
    assert caught.value.errors and "kind" in caught.value.errors


def test_paging_with_before(session, history):
    first = store.list_activity(session, limit=4)
    second = store.list_activity(session, limit=4, before=first[-1].id)
    assert [row.id for row in first + second] == [row.id for row in history]
    assert store.list_activity(session, before=history[-1].id) == []


def test_filter_choices(session, history):
    assert store.activity_actors(session) == [None, "alice", "bob"]
    assert store.activity_actors(session, agent=store.get_agent(session, "b")) == ["bob"]
    assert store.activity_agent_names(session) == ["a", "a2", "b"]


def test_a_purged_agent_keeps_its_record(session, history):
    store.delete_agent(session, "a2")
    store.purge_agent(session, "a2")
    session.expire_all()
    rows = store.list_activity(session, agent="a2")
    assert [row.kind for row in rows][:3] == ["agent.purge", "agent.delete", "skill.create"]
    assert {row.agent_id for row in rows} == {None}
    assert len(store.list_activity(session, agent="a")) == 2


# -- hostile values


def test_details_are_one_bounded_line(session, agent):
    note = "line one\r\nline\ttwo  " + "x" * 10_000
    with store.acting_as("alice"):
        store.save_skill(session, agent, "intro", expected_version=1, content="new", note=note)
    row = newest(session)
    assert len(row.detail) == models.ACTIVITY_DETAIL_LENGTH and row.detail.endswith("…")
    assert row.detail.startswith("version 2: line one line two x")


@pytest.mark.parametrize("text, limit, expected", [
    ("a\x00b\x1b[31mc\x7f", 20, "a b [31mc"),
    ("  spaced   out  ", 20, "spaced out"),
    ("one\u2028line\u00a0only", 20, "one line only"),
    ("abcdef", 4, "abc…"),
])
def test_bounded(text, limit, expected):
    from webapp.store.activity import bounded

    assert bounded(text, limit) == expected


def test_long_names_fit_their_columns(session):
    long = "n" * models.NAME_LENGTH
    with store.acting_as("alice"):
        store.create_agent(session, long)
        store.create_skill(session, long, long, content="x")
        store.rename_skill(session, long, long, "m" * models.NAME_LENGTH)
    row = newest(session)
    assert row.subject == "m" * models.NAME_LENGTH
    assert len(row.detail) <= models.ACTIVITY_DETAIL_LENGTH


def test_record_refuses_an_unknown_kind_and_a_call_outside_a_change(session, agent):
    row = store.get_agent(session, agent)
    with pytest.raises(ValueError):
        store.record(session, row, "skill.explode", "intro")
    with pytest.raises(RuntimeError):
        store.record(session, row, "publish", "1")
    session.rollback()
    assert store.list_activity(session, kind="publish") == []
