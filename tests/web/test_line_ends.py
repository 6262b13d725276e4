"""The one line-end rule (`webapp.pipeline.lf_line_ends`) through every path a text comes in
by: the pipeline itself, the store's writes and bundle import, the editor's form and JSON
body, an item's form, and a SKILL.md read or uploaded. Each path gives the same text."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest

from tests.support.pages import HTMX
from webapp import store
from webapp.agentskills import dump_skill_md, load_skill_md
from webapp.pipeline import Agent, Skill, Workspace, assemble, lf_line_ends
from webapp.schema import db

#: (what was typed or sent, what every path keeps).
CASES = [
    pytest.param("a\r\nb\r\n", "a\nb\n", id="crlf"),
    pytest.param("a\rb\r", "a\nb\n", id="lone-cr"),
    pytest.param("a\r\n\rb\nc", "a\n\nb\nc", id="mixed"),
    pytest.param("a\r\r\nb", "a\n\nb", id="cr-then-crlf"),
    pytest.param("a\nb\n", "a\nb\n", id="lf-unchanged"),
    # Characters `str.splitlines` breaks on that are not line ends here: text kept as typed.
    pytest.param("a\u2028b\u2029c", "a\u2028b\u2029c", id="unicode-separators-kept"),
    pytest.param("a\x85b\x0bc\x0cd", "a\x85b\x0bc\x0cd", id="nel-vt-ff-kept"),
]

EDITOR = "/agents/Simon/skills/chat"
_LOG_ENTRY = re.compile(r'<pre id="log-entry"[^>]*>(.*?)</pre>', re.DOTALL)
_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


@pytest.mark.parametrize("typed, kept", CASES)
def test_the_rule(typed, kept):
    assert lf_line_ends(typed) == kept
    assert lf_line_ends(kept) == kept  # applied twice, nothing more changes


@pytest.mark.parametrize("typed, kept", CASES)
def test_the_pipeline_reads_a_skill_by_the_rule(typed, kept):
    def message(content: str) -> Any:
        workspace = Workspace(agent=Agent(name="a"), skills=(Skill(d_tag="s", content=content),))
        return assemble(workspace).messages

    assert message(typed) == message(kept)


@pytest.mark.parametrize("typed, kept", CASES)
def test_the_store_keeps_the_rule_on_every_write(session, typed, kept):
    bundle = {"format": "skill-workspace/1", "agent": {"name": "Imported", "title": typed},
              "skills": [{"d_tag": "s", "content": typed, "description": typed}]}
    store.import_bundle(session, bundle)
    row = store.get_skill(session, "Imported", "s")
    assert (row.content, row.description) == (kept, kept)
    assert store.get_agent(session, "Imported").title == kept
    created = store.create_skill(session, "Imported", "t", content=typed, description=typed)
    assert (created.content, created.description) == (kept, kept)


@pytest.mark.parametrize("typed, kept", CASES)
def test_the_editor_saves_by_the_rule(client, simon, skill_form, saved, typed, kept):
    response = client.post(EDITOR, data=skill_form(typed, description=typed))
    assert response.status_code == 303
    assert (saved("Simon", "chat").content, saved("Simon", "chat").description) == (kept, kept)


@pytest.mark.parametrize("typed, kept", CASES)
def test_the_editor_json_body_is_read_by_the_rule(client, simon, csrf, saved, typed, kept):
    response = client.post(EDITOR, json={"version": 1, "content": typed},
                           headers={"X-CSRFToken": csrf})
    assert response.status_code == 303
    assert saved("Simon", "chat").content == kept


@pytest.mark.parametrize("typed, kept", CASES)
def test_the_preview_shows_the_draft_by_the_rule(client, simon, skill_form, typed, kept):
    def preview(content: str) -> str:
        response = client.post(f"{EDITOR}/preview", data=skill_form(content), headers=HTMX)
        assert response.status_code == 200
        # The context the draft assembles to, as the log-entry tab shows it, but its time.
        entry = _LOG_ENTRY.search(response.get_data(as_text=True))
        assert entry is not None
        return _STAMP.sub("", entry[1])

    shown = preview("Zebra " + typed)
    assert "Zebra" in shown and shown == preview("Zebra " + kept)


@pytest.mark.parametrize("typed, kept", CASES)
def test_an_item_form_reads_its_text_by_the_rule(app, client, simon, csrf, typed, kept):
    data = {"csrf_token": csrf, "name": "weather", "description": typed,
            "result": '{"success": true, "content": "clear"}', "results_by_args": "[]"}
    assert client.post("/agents/Simon/tools", data=data).status_code == 303
    with app.app_context():
        assert store.get_tool(db.get_session(), "Simon", "weather").description == kept


@pytest.mark.parametrize("typed, kept", CASES)
def test_a_skill_md_is_read_by_the_rule(app, client, simon, csrf, typed, kept):
    text = dump_skill_md(Skill(d_tag="line-ends", content=typed))
    assert load_skill_md(text).content == kept
    upload = (io.BytesIO(text.encode()), "SKILL.md")
    response = client.post("/transfer/skill", content_type="multipart/form-data",
                           data={"csrf_token": csrf, "agent": "Simon", "skill_file": upload})
    assert response.status_code == 303
    with app.app_context():
        assert store.get_skill(db.get_session(), "Simon", "line-ends").content == kept


def test_a_skill_md_saved_with_lone_crs_is_read():
    text = "---\rname: chat\rdescription: Chat\r---\r\rline one\rline two\r"
    assert load_skill_md(text).content == "line one\nline two\n"


# -- the d_tag's one rule and message, on every path that names a skill


D_TAG_MESSAGE = "a d_tag must not contain whitespace or braces: &#39;two words&#39;"


def test_a_d_tag_is_refused_with_one_message_everywhere(client, simon, csrf, skill_form, saved):
    checked = client.post("/agents/Simon/new-skill/check", headers=HTMX,
                          data={"csrf_token": csrf, "d_tag": "two words"})
    created = client.post("/agents/Simon/new-skill", data={"csrf_token": csrf,
                                                          "d_tag": "two words"})
    renamed = client.post(EDITOR, data=skill_form("x", d_tag="two words"))
    assert (checked.status_code, created.status_code, renamed.status_code) == (200, 422, 422)
    for response in (checked, created, renamed):
        assert D_TAG_MESSAGE in response.get_data(as_text=True)
    assert saved("Simon", "chat").version == 1


def test_a_skill_md_enabled_flag_is_read_by_the_flag_words():
    text = "---\nname: chat\ndescription: Chat\nmetadata:\n  enabled: 'Off'\n---\n\nbody\n"
    assert load_skill_md(text).enabled is False
