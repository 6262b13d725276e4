"""A keystroke pays for the edited skill alone: its work is counted, not timed.

The preview of a draft parses the SKILL.md head of the skill being edited, never those of
the other skills (their exported names are kept on their rows when they are saved:
`store.convert.exported_of`), and reads the database in the same number of statements
whatever the number of skills. The time these counts stand for is `make bench-check`'s.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import yaml
from sqlalchemy import event

from benchmarks.workspaces import scale_workspace
from tests.support.pages import HTMX
from webapp import store
from webapp.pipeline import dump_bundle, expectations, lay_out
from webapp.pipeline.untrusted import SafeYamlLoader
from webapp.schema import db

#: The module, not the function the package exports under its name.
assemble_module = importlib.import_module("webapp.pipeline.assemble")
HEAD = "---\nname: {name}\ndescription: Skill {i}, read from its SKILL.md.\nowner: crew\n---\n\n"


def agent_of(app, skills: int) -> str:
    """An agent `A<skills>` of `skills` skills, each with a SKILL.md head of its own."""
    bundle = dump_bundle(scale_workspace(skills))
    name = bundle["agent"]["name"] = f"A{skills}"
    with app.app_context():
        session = db.get_session()
        store.import_bundle(session, bundle)
        for i, row in enumerate(store.list_skills(session, name)):
            row.frontmatter = HEAD.format(name=row.d_tag.replace("_", "-"), i=i)
        session.commit()
    return name


@contextmanager
def counted(app, monkeypatch) -> Iterator[Counter[str]]:
    """Count YAML parses and dumps, SQL statements and assemblies while the block runs."""
    work: Counter[str] = Counter()
    parse, dump = SafeYamlLoader.get_single_node, yaml.safe_dump

    def parsing(self):
        work["yaml parse"] += 1
        return parse(self)

    def dumping(*args, **kwargs):
        work["yaml dump"] += 1
        return dump(*args, **kwargs)

    def statement(*args):
        work["sql"] += 1

    def laying_out(*args, **kwargs):
        work["assemblies"] += 1
        return lay_out(*args, **kwargs)

    with app.app_context():
        engine = db.get_database().engine
    with monkeypatch.context() as patched:
        patched.setattr(SafeYamlLoader, "get_single_node", parsing)
        patched.setattr(yaml, "safe_dump", dumping)
        for module in (assemble_module, expectations):  # `assemble` lays out, then joins
            patched.setattr(module, "lay_out", laying_out)
        event.listen(engine, "before_cursor_execute", statement)
        try:
            yield work
        finally:
            event.remove(engine, "before_cursor_execute", statement)


def keystroke(client, csrf, agent: str, shown: str, typed: str) -> None:
    """The preview POST of a keystroke in skill_3 of `agent`, `shown` open."""
    content = scale_workspace(8).skills_by_tag["skill_3"].content + typed
    data = {"csrf_token": csrf, "version": "1", "d_tag": "skill_3", "name": "",
            "layer": "1", "triggers": "dm", "enabled": "1", "content": content,
            "shown": shown}
    response = client.post(f"/agents/{agent}/skills/skill_3/preview", data=data,
                           headers=HTMX)
    assert response.status_code == 200, response.data[:300]


@pytest.mark.parametrize("shown", ["document:rendered", "diff", "messages", "tests"])
def test_a_keystroke_works_for_the_edited_skill_alone(app, client, csrf, monkeypatch, shown):
    few, many = agent_of(app, 8), agent_of(app, 40)
    work = {}
    for agent in (few, many):
        keystroke(client, csrf, agent, shown, "\nwarm")  # the memos filled, as when typing
        with counted(app, monkeypatch) as work[agent]:
            keystroke(client, csrf, agent, shown, "\nTyped now.")
    # The edited skill's head is read (and rewritten, as its export would write it) for its
    # lint; the heads of the 39 others are not: 200 skills once cost 600 parses and dumps.
    assert work[many]["yaml parse"] == work[few]["yaml parse"] <= 10, work
    assert work[many]["yaml dump"] == work[few]["yaml dump"] <= 5, work
    # No statement a skill: the same reads at 8 and at 40 skills.
    assert work[many]["sql"] == work[few]["sql"], work
    # The draft assembled once (the Tests badge reads the preview's own assembly), and
    # the injection check's hostile one laid out; the saved one comes from memory.
    assert work[many]["assemblies"] == work[few]["assemblies"] == 2, work


def test_a_skill_keeps_the_name_its_head_exports(app):
    """The name is computed when the skill is written (created, saved, its head replaced),
    and read as it is by the lint of the others."""
    agent = agent_of(app, 3)
    with app.app_context():
        session = db.get_session()
        # The heads above were set behind the store's back: a save computes the name.
        row = store.get_skill(session, agent, "skill_1")
        store.save_skill(session, agent, "skill_1", expected_version=row.version,
                         content=row.content + "\nmore")
        names = store.exported_names(session, agent)
        assert names["skill-1"] == "skill_1"
        assert store.folder_facts(session, agent, "skill_0").others["skill-1"] == "skill_1"
        assert "skill-1" not in store.exported_names(session, agent, besides="skill_1")
        created = store.create_skill(session, agent, d_tag="fresh_one", content="Hi.")
        assert created.exported_name == "fresh-one"
