"""Names and routes, and nothing typed lost: the rules for names (a d_tag never reads as
another skill's page, no invisible characters, names compared NFKC, no lone surrogate),
where a skill went when a save meets it renamed, trashed or deleted, and the item trash
an import with replace fills."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from webapp import store
from webapp.app import create_app
from webapp.cli.database import import_cmd
from webapp.schema import db
from webapp.store import rules

# -- d_tags and the skill's sub-routes

SKILL_RULE = "/agents/<agent>/skills/<path:d_tag>"


def sub_routes_in_the_url_map() -> set[str]:
    """The sub-routes of a skill as the app's URL map has them (`<id:version>` as `<id>`)."""
    app = create_app({"TESTING": True, "DATABASE_URL": "sqlite://", "SEED_DEMO": False})
    return {re.sub(r"<\w+:\w+>", "<id>", rule.rule[len(SKILL_RULE) + 1:])
            for rule in app.url_map.iter_rules() if rule.rule.startswith(SKILL_RULE + "/")}


def test_the_rules_reserve_exactly_the_sub_routes_of_the_url_map():
    assert set(rules.SKILL_SUB_ROUTES) == sub_routes_in_the_url_map()


@pytest.mark.parametrize("route", sorted(sub_routes_in_the_url_map()))
def test_a_d_tag_ending_in_any_sub_route_is_refused(route):
    d_tag = "notes/" + route.replace("<id>", "12")
    problem = rules.d_tag_route_problem(d_tag)
    assert problem is not None and "'notes'" in problem


@pytest.mark.parametrize("d_tag", [
    "enabled", "preview", "history", "history/3",  # nothing before them: no parent skill
    "notes/enabled-2", "notes/preview.md", "notes/my-log", "notes/history/x",
    "notes/historyy/3", "team/notes",
])
def test_d_tags_that_name_no_page_are_accepted(d_tag):
    assert rules.d_tag_route_problem(d_tag) is None


@pytest.mark.parametrize(("name", "bad"), [
    ("é\u202egnp.exe", "U+202E"), ("Simon\u200b", "U+200B"), ("a\u200cb", "U+200C"),
    ("a\u200db", "U+200D"), ("\u2060x", "U+2060"), ("x\ufeff", "U+FEFF"),
    ("\u200ex", "U+200E"), ("x\u200f", "U+200F"), ("x\u061c", "U+061C"),
    ("a\u202ab", "U+202A"), ("a\u202db", "U+202D"), ("a\u2066b", "U+2066"),
    ("a\u2069b", "U+2069"),
])
def test_invisible_characters_are_refused_naming_the_first(name, bad):
    assert bad in rules.invisible_problem(name)


@pytest.mark.parametrize("name", ["Simon", "Ünïcödé", "日本語", "a-b_c.d", "emoji ✓"])
def test_visible_names_are_accepted(name):
    assert rules.invisible_problem(name) is None


@pytest.mark.parametrize(("name", "names", "same"), [
    ("Simon", ["Ｓimon"], "Ｓimon"), ("file", ["ﬁle"], "ﬁle"), ("x²", ["x2"], "x2"),
    ("Simon", ["simon"], None), ("Simon", ["Simon"], "Simon"), ("a", [], None),
])
def test_names_are_compared_by_their_nfkc_form(name, names, same):
    assert rules.same_name(name, names) == same


@pytest.mark.parametrize(("value", "path"), [
    ("a\ud800b", ""), ({"content": "a\udfffb"}, "content"),
    ({"history": [{"content": "x"}, {"content": "\ud800"}]}, "history[1].content"),
    ({"a\ud800": 1}, "a\ud800"), ({"ok": "fine", "n": 1, "l": [None, True]}, None),
])
def test_a_lone_surrogate_is_found_with_its_path(value, path):
    assert rules.surrogate_path(value) == path


@pytest.mark.parametrize(("section", "item", "field"), [
    ("skills", {"d_tag": "notes/enabled", "content": ""}, "d_tag"),
    ("skills", {"d_tag": "notes\u200b", "content": ""}, "d_tag"),
    ("skills", {"d_tag": "notes", "name": "Notes\u202e", "content": ""}, "name"),
    ("skills", {"d_tag": "notes", "content": "a\ud800"}, "content"),
    ("tools", {"name": "look\u200dup"}, "name"),
    ("agent", {"name": "Simon\u200b"}, "name"),
])
def test_every_path_s_rule_refuses_them_by_field(section, item, field):
    assert field in dict(rules.item_problems(section, item))


# -- the store: every write path refuses them


def test_creating_renaming_and_importing_a_reserved_d_tag_is_refused(session, agent,
                                                                     full_bundle):
    with pytest.raises(store.ValidationError) as caught:
        store.create_skill(session, agent, "chat/enabled")
    assert "must not end in '/enabled'" in caught.value.errors["d_tag"]
    with pytest.raises(store.ValidationError):
        store.rename_skill(session, agent, "other", "chat/history/2")
    with pytest.raises(store.ValidationError):
        store.save_skill(session, agent, "other", expected_version=1, content="x",
                         new_d_tag="chat/log")
    full_bundle["skills"][2]["d_tag"] = "main/delete"
    with pytest.raises(store.ValidationError) as caught:
        store.import_bundle(session, full_bundle)
    assert "$.skills[2].d_tag" in caught.value.errors
    assert "'main/delete'" not in {s.d_tag for s in store.list_skills(session, agent)}


def test_names_that_read_the_same_are_taken(session, agent, full_bundle):
    with pytest.raises(store.AlreadyExists, match="reads as"):
        store.create_agent(session, "ｄemo")
    store.create_agent(session, "other")
    with pytest.raises(store.AlreadyExists):
        store.update_agent(session, "other", name="ｄemo")
    with pytest.raises(store.AlreadyExists, match="reads the same"):
        store.create_skill(session, agent, "ｃhat")
    with pytest.raises(store.AlreadyExists):
        store.rename_skill(session, agent, "other", "ｃhat")
    assert store.d_tag_problem(session, agent, "ｃhat") is not None
    full_bundle["agent"]["name"] = "ｄemo"
    with pytest.raises(store.AlreadyExists) as caught:
        store.import_bundle(session, full_bundle, replace=True)
    assert "$.agent.name" in caught.value.errors
    full_bundle["agent"]["name"] = "fresh"
    full_bundle["skills"][2]["d_tag"] = "ｍain"
    with pytest.raises(store.ValidationError) as caught:
        store.import_bundle(session, full_bundle)
    assert "reads as the d_tag 'main'" in caught.value.errors["$.skills[2].d_tag"]


def test_invisible_characters_and_surrogates_are_refused(session, agent):
    with pytest.raises(store.ValidationError):
        store.create_agent(session, "é\u202egnp.exe")
    with pytest.raises(store.ValidationError):
        store.create_skill(session, agent, "new", name="Chat\u200b")
    with pytest.raises(store.ValidationError) as caught:
        store.save_skill(session, agent, "chat", expected_version=1, content="a\ud800b")
    assert caught.value.errors["content"] == rules.SURROGATE_MESSAGE
    with pytest.raises(store.ValidationError):
        store.create_tool(session, agent, "t", result={"content": "\udc00"})


# -- a save meets the skill renamed, trashed or deleted


def test_a_save_after_a_rename_is_a_conflict_saying_where_it_went(session, agent):
    store.rename_skill(session, agent, "other", "elsewhere")
    with pytest.raises(store.Conflict) as caught:
        store.save_skill(session, agent, "other", expected_version=1, content="mine")
    conflict = caught.value
    assert conflict.where == "renamed" and conflict.current["d_tag"] == "elsewhere"
    assert conflict.submitted["content"] == "mine" and "renamed to 'elsewhere'" in str(conflict)
    assert store.get_skill(session, agent, "elsewhere").content == "Other {{ intro }} text.\n"


def test_a_save_after_a_trash_or_a_delete_is_a_conflict(session, agent):
    store.delete_skill(session, agent, "other")
    with pytest.raises(store.Conflict) as caught:
        store.save_skill(session, agent, "other", expected_version=1, content="mine")
    assert caught.value.where == "trash" and "moved to the trash" in str(caught.value)
    with pytest.raises(store.Conflict) as caught:
        store.save_skill(session, agent, "never-was", expected_version=1, content="mine")
    assert caught.value.where == "deleted" and caught.value.saved.content == ""
    assert store.get_skill(session, agent, "other", include_deleted=True).version == 1


def test_last_known_follows_a_skill_through_renames(session, agent):
    store.rename_skill(session, agent, "other", "b")
    store.rename_skill(session, agent, "b", "c")
    assert store.last_known(session, agent, "other").d_tag == "c"
    assert store.last_known(session, agent, "b").d_tag == "c"
    assert store.last_known(session, agent, "nothing") is None


# -- import with replace keeps what it drops


def test_import_with_replace_trashes_dropped_and_changed_items_and_restores_them(
        session, full_bundle):
    store.import_bundle(session, full_bundle)
    store.import_bundle(session, full_bundle, replace=True)
    assert store.list_item_trash(session, "Tester") == [], "nothing changed, nothing trashed"
    old_lookup = store.get_tool(session, "Tester", "lookup").description
    full_bundle["tools"] = [{**full_bundle["tools"][0], "description": "New."}]
    full_bundle["variables"] = [v for v in full_bundle["variables"] if v["tool"] == "lookup"]
    full_bundle["scenarios"] = []
    store.import_bundle(session, full_bundle, replace=True)
    trashed = {(i.section, i.name): i for i in store.list_item_trash(session, "Tester")}
    assert set(trashed) == {("tools", "lookup"), ("tools", "empty"), ("variables", "plain"),
                            ("scenarios", "hello"), ("scenarios", "tick")}
    assert trashed[("tools", "lookup")].fields["description"] == old_lookup
    restored = store.restore_item(session, "Tester", trashed[("scenarios", "tick")].id)
    assert restored.event == {"kind": 1, "tags": [["t", "cron"]],
                              "nested": {"big": 12345678901234567890, "f": 0.1}}
    assert [s.name for s in store.list_scenarios(session, "Tester")] == ["tick"]
    with pytest.raises(store.AlreadyExists, match="rename or delete it"):
        store.restore_item(session, "Tester", trashed[("tools", "lookup")].id)
    with pytest.raises(store.NotFound):
        store.restore_item(session, "Tester", trashed[("scenarios", "tick")].id)
    assert len(store.list_item_trash(session, "Tester")) == 4


# -- a stored skill the rule now refuses


def test_the_migration_renames_stored_reserved_d_tags_and_their_references(database_url):
    engine = db.make_engine(database_url)
    try:
        db.upgrade(engine, "0006")
        with engine.begin() as connection:
            connection.execute(text(
                "INSERT INTO agents (id, name, title, message_mode, max_array_items, "
                "history_labels, model, context_window, created_at) VALUES (1, 'a', '{name}', "
                "'grouped', 8, '{}', 'm', 0, '2026-01-01')"))
            for id_, d_tag, content in (
                    (1, "notes", "{{notes/enabled}} and {{ notes/enabled }}"),
                    (2, "notes/enabled", "Kept."), (3, "notes/enabled-skill", "Taken name.")):
                connection.execute(text(
                    "INSERT INTO skills (id, agent_id, d_tag, name, description, layer, "
                    "triggers, enabled, content, position, version, created_at, updated_at) "
                    "VALUES (:id, 1, :d, '', '', 1, '[]', true, :c, :id, 1, '2026-01-01', "
                    "'2026-01-01')"), {"id": id_, "d": d_tag, "c": content})
        db.upgrade(engine)
        with engine.connect() as connection:
            found = dict(connection.execute(text("SELECT id, d_tag FROM skills")).all())
            contents = dict(connection.execute(text("SELECT id, content FROM skills")).all())
            revision = connection.execute(text(
                "SELECT version, note FROM skill_revisions WHERE skill_id = 2")).one()
    finally:
        engine.dispose()
    assert found == {1: "notes", 2: "notes/enabled-skill-2", 3: "notes/enabled-skill"}
    assert contents[1] == "{{notes/enabled-skill-2}} and {{ notes/enabled-skill-2 }}"
    assert contents[2] == "Kept."
    assert revision[0] == 2 and revision[1].startswith("renamed from notes/enabled")


# -- the CLI import


def test_cli_import_with_replace_trashes_what_it_drops(monkeypatch, database_url, tmp_path,
                                                       full_bundle, session):
    monkeypatch.setenv("DATABASE_URL", database_url)
    runner = CliRunner()
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(full_bundle), encoding="utf-8")
    assert runner.invoke(import_cmd, [str(path)]).exit_code == 0
    full_bundle["tools"].pop()  # `empty`
    full_bundle["variables"] = [v for v in full_bundle["variables"] if v["tool"] != "empty"]
    path.write_text(json.dumps(full_bundle), encoding="utf-8")
    result = runner.invoke(import_cmd, [str(path), "--replace"])
    assert result.exit_code == 0, result.output
    session.expire_all()
    assert {(i.section, i.name) for i in store.list_item_trash(session, "Tester")} == {
        ("tools", "empty"), ("variables", "plain")}


@pytest.mark.parametrize(("change", "path"), [
    (lambda b: b["skills"][0].update(d_tag="main/enabled"), "$.skills[0].d_tag"),
    (lambda b: b["skills"][1].update(content="a\ud800"), "$.skills[1].content"),
    (lambda b: b["agent"].update(name="Tester\u200b"), "$.agent.name"),
])
def test_cli_import_refuses_names_by_json_path(monkeypatch, database_url, tmp_path,
                                               full_bundle, change, path):
    monkeypatch.setenv("DATABASE_URL", database_url)
    change(full_bundle)
    file = tmp_path / "bundle.json"
    file.write_text(json.dumps(full_bundle), encoding="utf-8")
    result = CliRunner().invoke(import_cmd, [str(file)])
    assert result.exit_code == 1 and f"{path}: " in result.output
