"""Small defects, each pinned by a test: the editor's titles after a failed save, messages
that outlived the action they were about, addresses with a trailing slash, an import's
address reopened, the request limits (and the import's larger one), and what an import
says of `{{references}}` that resolve to nothing."""

from __future__ import annotations

import io
import json
import re

import pytest
from sqlalchemy import event

from tests.support.pages import HTMX, is_page
from webapp import store
from webapp.schema import db
from webapp.schema.db import get_database

EDITOR = "/agents/Simon/skills/chat"
FLASHES = re.compile(r'<ul class="flashes">(.*?)</ul>', re.S)


def flashes(response) -> list[str]:
    """The flashed messages a page shows (a fragment shows none)."""
    found = FLASHES.search(response.data.decode())
    return re.findall(r"<li>(.*?)</li>", found.group(1), re.S) if found else []


def multipart(**fields) -> dict:
    return {"data": fields, "content_type": "multipart/form-data"}


# -- 1. a failed save keeps the saved d_tag in the title and the breadcrumbs


def test_a_failed_save_shows_the_saved_d_tag_around_the_form(client, simon, skill_form):
    response = client.post(EDITOR, data=skill_form("system:\nhi\n", d_tag="bad tag", name=""))
    assert response.status_code == 422
    html = response.data.decode()
    assert "<title>chat · Simon · Skill Editor</title>" in html
    crumbs = re.search(r'<nav class="breadcrumbs".*?</nav>', html, re.S).group(0)
    assert "<span>chat</span>" in crumbs and "bad tag" not in crumbs
    assert re.search(r"<h1>chat <span", html)
    # The field keeps what the author typed, and says what is wrong with it.
    assert 'name="d_tag" value="bad tag"' in html
    assert 'aria-invalid="true" aria-describedby="error-d_tag"' in html


# -- 2. a message is flashed only where a whole page will show it


def test_an_htmx_restore_from_the_trash_leaves_no_message_for_a_later_page(client, simon, csrf):
    deleted = client.post(f"{EDITOR}/delete", data={"csrf_token": csrf}, headers=HTMX)
    assert deleted.status_code == 204 and deleted.headers["HX-Redirect"] == "/agents/Simon/trash"
    trash = client.get(deleted.headers["HX-Redirect"])  # the navigation htmx makes
    assert flashes(trash) == ["Moved chat to the trash."]
    restored = client.post(f"{EDITOR}/restore", data={"csrf_token": csrf}, headers=HTMX)
    assert restored.status_code == 200 and b"Restored <a" in restored.data  # in place
    assert flashes(client.get(EDITOR)) == []


@pytest.mark.parametrize("path, fields", [
    (f"{EDITOR}/enabled", {"enabled": "0", "current": "identity"}),
    (f"{EDITOR}/move", {"direction": "up", "current": "chat"}),
    (f"{EDITOR}/log", {"d_tag": "chat", "content": "system:\nhi\n", "version": "1"}),
    ("/agents/Simon/preview/log", {}),
])
def test_htmx_actions_answered_in_place_flash_nothing(client, simon, csrf, path, fields):
    response = client.post(path, data={"csrf_token": csrf, **fields}, headers=HTMX)
    assert response.status_code == 200 and not is_page(response)
    assert flashes(client.get("/agents/Simon/trash")) == []


def test_an_htmx_log_delete_says_so_in_place_and_flashes_nothing(app, client, simon, csrf):
    client.post(f"{EDITOR}/log", data={"csrf_token": csrf, "d_tag": "chat", "version": "1",
                                       "content": "system:\nhi\n"}, headers=HTMX)
    with app.app_context():
        entry = store.list_log(db.get_session(), "Simon")[0].id
    response = client.post(f"/agents/Simon/log/{entry}/delete", data={"csrf_token": csrf},
                           headers=HTMX)
    assert f"Deleted context-log entry #{entry}." in response.data.decode()
    assert flashes(client.get("/agents/Simon/trash")) == []


def test_a_change_that_leads_elsewhere_navigates_htmx_to_the_page_that_shows_it(
        client, simon, csrf):
    # A 303 would be followed by htmx's own request, which gets a fragment (no message)
    # and leaves the message for some later page; a full navigation shows it at once.
    response = client.post("/agents/Simon/scenarios/admin asks about mentions/delete",
                           data={"csrf_token": csrf}, headers=HTMX)
    assert response.status_code == 204
    page = client.get(response.headers["HX-Redirect"])
    assert flashes(page) == ["Deleted the scenario admin asks about mentions."]
    assert flashes(client.get("/agents/Simon/trash")) == []


def test_without_htmx_the_same_change_is_a_303_and_the_next_page_says_it(client, simon, csrf):
    client.post(f"{EDITOR}/delete", data={"csrf_token": csrf})
    client.get("/agents/Simon/trash")
    response = client.post(f"{EDITOR}/restore", data={"csrf_token": csrf})
    assert response.status_code == 303
    assert flashes(client.get(response.headers["Location"])) == ["Restored chat from the trash."]


# -- 3. a trailing slash


@pytest.mark.parametrize("path, target", [
    ("/agents/Simon/", "/agents/Simon"),
    ("/agents/Simon/tools/", "/agents/Simon/tools"),
    ("/help/", "/help"),
    ("/agents/Simon/skills/chat/", "/agents/Simon/skills/chat"),  # a <path:d_tag> route
    ("/agents/Simon/skills/chat/history/", "/agents/Simon/skills/chat/history"),
    ("/agents/Simon/skills/chat//", "/agents/Simon/skills/chat"),
    ("/agents/Simon/skills/chat/?q=caf%C3%A9%20x&x=1",
     "/agents/Simon/skills/chat?q=caf%C3%A9%20x&x=1"),
    ("/agents/Simon/tools/agent_identity/", "/agents/Simon/tools/agent_identity"),
])
def test_a_trailing_slash_redirects_to_the_address_without_it(client, simon, path, target):
    response = client.get(path)
    assert response.status_code == 308 and response.headers["Location"] == target
    assert client.get(target).status_code in (200, 302)  # /agents/Simon opens a skill


def test_a_redirect_keeps_the_method_and_body(client, simon, csrf):
    response = client.post("/agents/Simon/skills/chat/move/",
                           data={"csrf_token": csrf, "direction": "up"})
    assert response.status_code == 308
    assert response.headers["Location"] == "/agents/Simon/skills/chat/move"


@pytest.mark.parametrize("path", ["/nothing/", "/agents/Simon/nothing/", "/transfer/nothing/",
                                  "/agents/Simon/log/x/"])
def test_a_trailing_slash_where_no_route_takes_the_address_stays_404(client, simon, path):
    assert client.get(path).status_code == 404


@pytest.mark.parametrize("path", ["/agents/Simon/tools/x/y/z/", "/agents/Nobody/",
                                  "/static/nothing/"])
def test_the_address_without_the_slash_answers_for_itself(client, simon, path):
    # A route takes the address (no tool x/y/z, no agent Nobody): it says so, as a 404.
    response = client.get(path)
    assert response.status_code == 308
    assert client.get(response.headers["Location"]).status_code == 404


def test_a_d_tag_that_ends_in_a_slash_is_opened_not_redirected(app, client, simon):
    with app.app_context():
        store.create_skill(db.get_session(), "Simon", "notes/", content="system:\nnotes\n")
    response = client.get("/agents/Simon/skills/notes/")
    assert response.status_code == 200 and 'value="notes/"' in response.data.decode()


def test_a_trailing_slash_never_redirects_off_the_site(client, simon):
    response = client.get("/", environ_overrides={"PATH_INFO": "//evil.example/"})
    assert response.status_code == 404 and "Location" not in response.headers


def test_a_path_with_percent_signs_and_question_marks_is_quoted(app, client, simon):
    with app.app_context():
        store.create_skill(db.get_session(), "Simon", "50%?x", content="system:\nx\n")
    response = client.get("/agents/Simon/skills/50%25%3Fx/")
    assert response.headers["Location"] == "/agents/Simon/skills/50%25%3Fx"
    assert client.get(response.headers["Location"]).status_code == 200


# -- 4. an import's address, reopened


@pytest.mark.parametrize("path, target", [
    ("/transfer/bundle", "/transfer"),
    ("/transfer/skill", "/transfer"),
    ("/transfer/bundle?agent=Simon", "/transfer?agent=Simon"),
    ("/transfer/skill?agent=Simon", "/transfer?agent=Simon"),
])
def test_an_import_address_opened_goes_to_the_import_page(client, simon, path, target):
    response = client.get(path)
    assert response.status_code == 303 and response.headers["Location"] == target


def test_a_failed_import_keeps_the_agent_in_its_address(client, simon, csrf):
    page = client.get("/transfer?agent=Simon").data.decode()
    assert 'action="/transfer/bundle?agent=Simon"' in page
    assert 'action="/transfer/skill?agent=Simon"' in page
    response = client.post("/transfer/bundle?agent=Simon",
                           **multipart(csrf_token=csrf, bundle_text="{"))
    assert response.status_code == 422
    assert 'action="/transfer/bundle?agent=Simon"' in response.data.decode()
    reopened = client.get("/transfer/bundle?agent=Simon")
    assert reopened.headers["Location"] == "/transfer?agent=Simon"


# -- 5. request limits


def test_the_413_page_states_the_limit_and_the_cli(client, simon, skill_form):
    response = client.post(EDITOR, data=skill_form("x" * (2 * 1024 * 1024)))
    assert response.status_code == 413
    html = response.data.decode()
    assert "larger than this server accepts here: 1 MB at most." in html
    assert "imports may be up to 16 MB" in html
    assert "<code>skill-editor import FILE</code>" in html


def big_bundle(skills: int = 700, chars: int = 2150) -> dict:
    """A bundle of `skills` skills of about `chars` characters each (about 1.5 MB for 700),
    each using a binding and one of seven names that resolve to nothing."""
    body = ("You answer as the relay's assistant and keep to the facts. " * 40)[:chars]
    return {"format": "skill-workspace/1", "agent": {"name": "Big"},
            "variables": [{"name": "agent_npub", "tool": "message_current"}],
            "skills": [{"d_tag": f"skill-{i:03}", "name": f"Skill {i}", "layer": 1,
                        "triggers": ["dm"], "enabled": True,
                        "content": f"system:\n# Skill {i}\n{{{{agent_npub}}}} "
                                   f"{{{{missing_{i % 7}}}}}\n{body}\n"}
                       for i in range(skills)]}


def test_a_bundle_of_700_skills_imports_in_the_browser(app, client, csrf):
    """The import's work is counted in SQL statements: a few a skill (its row and its first
    version), never a number that grows with the skills already imported."""
    data = json.dumps(big_bundle()).encode()
    assert 1.5 * 1024 * 1024 < len(data) < 2 * 1024 * 1024
    statements: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany):
        statements.append(statement)

    engine = get_database(app).engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        response = client.post("/transfer/bundle", **multipart(
            csrf_token=csrf, bundle_file=(io.BytesIO(data), "big.skill-workspace.json")))
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert response.status_code == 303, response.data[:500]
    assert len(statements) <= 5 * 700, f"{len(statements)} statements for 700 skills"
    with app.app_context():
        assert len(store.list_skills(db.get_session(), "Big")) == 700
    [message] = flashes(client.get("/"))
    assert message.startswith("Imported Big: 700 skills, 0 tools, 1 variable, 0 scenarios.")
    assert ("7 references do not resolve in Big: {{missing_0}}, {{missing_1}}, {{missing_2}}, "
            "{{missing_3}}, {{missing_4}} and 2 more — they assemble to empty text.") in message


def test_a_pasted_bundle_over_a_megabyte_imports_too(app, client, csrf):
    text = json.dumps(big_bundle(600))
    assert len(text) > 1024 * 1024
    response = client.post("/transfer/bundle", **multipart(csrf_token=csrf, bundle_text=text))
    assert response.status_code == 303


def test_every_other_route_keeps_the_one_megabyte_limit(client, simon, csrf):
    body = {"csrf_token": csrf, "content": "x" * (2 * 1024 * 1024)}
    for path in (EDITOR, f"{EDITOR}/preview", "/agents/Simon/tool-preview"):
        assert client.post(path, data=body).status_code == 413, path


def test_the_import_limit_is_config(app, client, simon, csrf):
    app.config["IMPORT_MAX_CONTENT_LENGTH"] = 4096
    data = json.dumps(big_bundle(5)).encode()
    response = client.post("/transfer/bundle", **multipart(
        csrf_token=csrf, bundle_file=(io.BytesIO(data), "big.json")))
    assert response.status_code == 413
    html = response.data.decode()
    assert "accepts here: 4 KB at most." in html and "may be up to" not in html
    assert "<code>skill-editor import FILE</code>" in html


# -- 6. references an import leaves unresolved


SKILL_MD = """\
---
name: weather
description: The weather
metadata:
  d_tag: weather
  triggers: dm
---

system:
Today: {{forecast}}. Ask {{agent_npub}}, {{ station_id }} and {{chat}}; \\{{escaped}} is text.
"""


def test_a_skill_md_import_names_the_references_that_resolve_to_nothing(client, simon, csrf):
    response = client.post("/transfer/skill", **multipart(
        csrf_token=csrf, agent="Simon", skill_file=(io.BytesIO(SKILL_MD.encode()), "SKILL.md")))
    assert response.status_code == 303
    assert flashes(client.get(response.headers["Location"])) == [
        "Imported weather into Simon (new). 2 references do not "
        "resolve in Simon: {{forecast}}, {{station_id}} — they assemble to empty text."]


def test_an_untriggered_skill_md_is_checked_too(client, simon, csrf):
    text = "---\nname: loose\ndescription: Loose\n---\n\nUses {{nowhere}}.\n"
    response = client.post("/transfer/skill", **multipart(
        csrf_token=csrf, agent="Simon", skill_file=(io.BytesIO(text.encode()), "SKILL.md")))
    assert flashes(client.get(response.headers["Location"])) == [
        "Imported loose into Simon (new). 1 reference does not "
        "resolve in Simon: {{nowhere}} — it assembles to empty text."]


def test_an_import_whose_references_all_resolve_says_nothing_more(client, simon, csrf):
    text = "---\nname: fine\ndescription: Fine\n---\n\nAsk {{agent_npub}}.\n"
    response = client.post("/transfer/skill", **multipart(
        csrf_token=csrf, agent="Simon", skill_file=(io.BytesIO(text.encode()), "SKILL.md")))
    assert flashes(client.get(response.headers["Location"])) == [
        "Imported fine into Simon (new)."]


def test_a_long_unknown_name_is_cut_in_the_message(client, simon, csrf):
    name = "n" * 150
    text = f"---\nname: long\ndescription: Long\n---\n\n{{{{{name}}}}}\n"
    response = client.post("/transfer/skill", **multipart(
        csrf_token=csrf, agent="Simon", skill_file=(io.BytesIO(text.encode()), "SKILL.md")))
    [message] = flashes(client.get(response.headers["Location"]))
    assert "{{" + "n" * 39 + "…}}" in message and name not in message
