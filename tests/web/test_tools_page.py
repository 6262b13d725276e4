"""The Tools page: list, edit, live JSON check and preview, usage, rename, delete, errors."""

from __future__ import annotations

import json

import pytest

from tests.support.pages import HTMX, executable_markup, is_page, starts_with
from tests.support.xss import CORPUS, XSS
from webapp import store
from webapp.schema import db
from webapp.store import renames

TOOLS = "/agents/Simon/tools"
IDENTITY = f"{TOOLS}/agent_identity"
PREVIEW = "/agents/Simon/tool-preview"


@pytest.fixture
def tool(app):
    """Read a mock tool as saved now: `tool(agent, name)` -> store row."""

    def read(agent: str, name: str):
        with app.app_context():
            return store.get_tool(db.get_session(), agent, name)

    return read


def tool_form(csrf: str, **fields) -> dict:
    data = {"csrf_token": csrf, "name": "weather", "description": "Today's weather.",
            "result": json.dumps({"success": True, "content": json.dumps({"sky": "clear"})}),
            "results_by_args": "[]"}
    data.update(fields)
    return data


# -- pages and fragments


def test_index_page_and_fragment(client, simon):
    page = client.get(TOOLS)
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    assert 'id="tool-list"' in html and "New mock tool" in html
    assert "agent_identity" in html and "nostr_agent_profile" in html
    assert "HX-Request" in page.headers["Vary"]
    fragment = client.get(TOOLS, headers=HTMX)
    assert not is_page(fragment) and starts_with(fragment, b'<div id="tools"')


def test_edit_page_shows_json_preview_and_users(client, simon):
    page = client.get(IDENTITY)
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    assert 'name="result" class="json-text"' in html
    assert "&#34;success&#34;: true" in html  # the result, as indented JSON
    # The default format's output, rendered and as markdown source.
    assert "<strong>npub</strong>" in html
    assert '<span class="gs">**npub**</span>' in html
    # Used by the binding agent_npub and, through it, the identity skill.
    assert 'binding <a href="/agents/Simon/variables#variable-agent_npub">' in html
    assert "through {{agent_npub}}" in html and "/agents/Simon/skills/identity" in html
    fragment = client.get(IDENTITY, headers=HTMX)
    assert starts_with(fragment, b'<div id="tools"')


def test_tools_link_from_the_layout(client, simon):
    html = client.get("/agents/Simon/skills/chat").data.decode()
    assert 'href="/agents/Simon/tools"' in html and 'href="/agents/Simon/variables"' in html


# -- the live check and preview


def test_preview_fragment_shows_what_the_default_format_makes(client, simon, csrf):
    result = {"success": True, "content": json.dumps({"city": "Lisbon", "temps": [18, 21]})}
    response = client.post(PREVIEW, headers=HTMX, data=tool_form(csrf, result=json.dumps(result)))
    assert response.status_code == 200 and starts_with(response, b'<section id="tool-preview"')
    html = response.data.decode()
    assert "<strong>city</strong>: Lisbon" in html and "<strong>temps</strong>: 18, 21" in html


def test_preview_renders_the_nested_bullets_of_a_nested_result(client, simon, csrf):
    """JSON→markdown nests by two spaces; the rendered view nests the lists too (the
    markdown source shown beside it keeps its two spaces)."""
    content = {"relays": {"damus": {"latency": 80, "tags": ["fast", "eu"]}}}
    result = {"success": True, "content": json.dumps(content)}
    html = client.post(PREVIEW, headers=HTMX, data=tool_form(csrf, result=json.dumps(result))
                       ).data.decode()
    assert ("<li><strong>relays</strong>:<ul>\n<li><strong>damus</strong>:<ul>\n"
            "<li><strong>latency</strong>: 80</li>") in html
    assert ('\n<span class="w">  </span><span class="k">-</span><span class="w"> </span>'
            '<span class="gs">**damus**</span>') in html


def test_preview_of_results_by_args(client, simon, csrf):
    by_args = [{"args": {"city": "Porto"}, "result": {"success": True, "content": "Rain."}},
               {"args": {"city": "Faro"}, "result": {"success": False, "error": "offline"}}]
    response = client.post(PREVIEW, headers=HTMX,
                           data=tool_form(csrf, results_by_args=json.dumps(by_args)))
    html = response.data.decode()
    assert "args {&#34;city&#34;: &#34;Porto&#34;}" in html and "<p>Rain.</p>" in html
    assert "tool-error" in html and "offline" in html


def test_preview_with_bad_json_names_line_and_column(client, simon, csrf, tool):
    bad = '{\n  "success": true,\n  "content": "x",,\n}'
    response = client.post(PREVIEW, headers=HTMX, data=tool_form(csrf, result=bad))
    assert response.status_code == 422  # htmx swaps it in (layout's responseHandling)
    html = response.data.decode()
    assert "invalid JSON at line 3, column 18" in html
    assert 'data-goto-field="result" data-line="3" data-column="18"' in html
    assert 'data-field-error="result"' in html


def test_preview_without_javascript_is_the_whole_page(client, simon, csrf):
    response = client.post(PREVIEW, data=tool_form(csrf, original="agent_identity",
                                                   name="agent_identity"))
    assert response.status_code == 200 and is_page(response)
    assert b"<strong>sky</strong>: clear" in response.data


def test_plain_text_content_passes_through(client, simon, csrf):
    result = json.dumps({"success": True, "content": "# Already markdown\n\n- a"})
    html = client.post(PREVIEW, headers=HTMX, data=tool_form(csrf, result=result)).data.decode()
    assert "<h1>Already markdown</h1>" in html


# -- create, update, rename


def test_create_tool(client, simon, csrf, tool):
    response = client.post(TOOLS, data=tool_form(csrf))
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"{TOOLS}/weather")
    row = tool("Simon", "weather")
    assert row.result == {"success": True, "content": '{"sky": "clear"}'}
    assert row.results_by_args == [] and row.description == "Today's weather."
    assert "Created the tool weather." in client.get(f"{TOOLS}/weather").data.decode()


def test_create_from_a_json_body(client, simon, csrf, tool):
    body = {"name": "clock", "result": {"success": True, "content": "12:00"},
            "results_by_args": [{"args": {"tz": "UTC"}, "result": "noon"}]}
    response = client.post(TOOLS, json=body, headers={"X-CSRFToken": csrf})
    assert response.status_code == 303
    assert tool("Simon", "clock").results_by_args == [{"args": {"tz": "UTC"}, "result": "noon"}]


def test_save_with_bad_json_is_422_and_changes_nothing(client, simon, csrf, tool):
    for field in ("result", "results_by_args"):
        response = client.post(IDENTITY, data=tool_form(csrf, name="agent_identity",
                                                        **{field: '[1, 2'}))
        assert response.status_code == 422 and is_page(response)
        html = response.data.decode()
        assert f"<strong>{field}</strong>: invalid JSON at line 1, column 6" in html
        assert "[1, 2</textarea>" in html  # the author's text is kept
    assert tool("Simon", "agent_identity").description == "The agent's public key and npub."


def test_results_by_args_must_be_a_list_of_args_and_result(client, simon, csrf, tool):
    for value, reason in [('{"args": 1}', "must be an array"),
                          ('[{"result": 1}]', "results_by_args[0].args: is required"),
                          ('[{"args": 1, "extra": 2}]', "unknown key")]:
        response = client.post(TOOLS, data=tool_form(csrf, results_by_args=value))
        assert response.status_code == 422
        assert reason in response.data.decode()
    with pytest.raises(store.NotFound):
        tool("Simon", "weather")


@pytest.mark.parametrize("name, reason", [
    ("agent_identity", "a tool named &#39;agent_identity&#39; already exists"),
    ("", "must not be empty"),
    ("two words", "must not contain whitespace or braces"),
    ("message_current", "is a built-in tool name"),
    ("dm_history", "is a built-in tool name"),
])
def test_create_refuses_bad_or_taken_names(client, simon, csrf, tool, name, reason):
    response = client.post(TOOLS, data=tool_form(csrf, name=name))
    assert response.status_code == 422
    html = response.data.decode()
    assert "<strong>name</strong>" in html and reason in html
    assert 'name="name" value="' + name.replace("'", "&#39;") + '"' in html
    assert tool("Simon", "agent_identity").description == "The agent's public key and npub."


def test_rename_to_a_taken_name_is_422(client, simon, csrf, tool):
    response = client.post(IDENTITY, data=tool_form(csrf, name="nostr_agent_profile"))
    assert response.status_code == 422
    assert "already exists" in response.data.decode()
    assert tool("Simon", "agent_identity").name == "agent_identity"


def test_update_saves_the_result(client, simon, csrf, tool, saved):
    result = json.dumps({"success": True, "content": json.dumps({"npub": "npub1new"})})
    response = client.post(IDENTITY, data=tool_form(csrf, name="agent_identity", result=result))
    assert response.status_code == 303 and response.headers["Location"].endswith(IDENTITY)
    assert tool("Simon", "agent_identity").result["content"] == '{"npub": "npub1new"}'
    # The skill that uses it (through agent_npub) now shows the new value.
    html = client.get("/agents/Simon/skills/personality").data.decode()
    assert "npub1new" in html


def test_rename_takes_template_sections_along(client, relay_watch, csrf, app):
    base = "/agents/Relay%20Watch/tools"
    old = client.get(f"{base}/nostr_admin_profile").data.decode()
    assert "a template section" in old  # dm-reply calls it from its template
    response = client.post(f"{base}/nostr_admin_profile",
                           data=tool_form(csrf, name="admin_profile_tool",
                                          result=json.dumps({"success": True, "content": "{}"})))
    assert response.status_code == 303
    with app.app_context():
        session = db.get_session()
        skill = store.get_skill(session, relay_watch, "dm-reply")
        assert "  tool: admin_profile_tool\n" in skill.content
        assert "nostr_admin_profile" not in skill.content
        assert store.list_revisions(session, relay_watch, "dm-reply")[0].note == (
            "tool nostr_admin_profile renamed to admin_profile_tool")
    flash = client.get(f"{base}/admin_profile_tool").data.decode()
    assert "Renamed it in skill dm-reply." in flash
    preview = client.get("/agents/Relay%20Watch/preview?scenario=admin+asks+about+latency")
    assert b"missing-tool" not in preview.data


def test_rename_takes_bindings_along(client, relay_watch, csrf, app):
    base = "/agents/Relay%20Watch/tools"
    with app.app_context():
        before = store.get_skill(db.get_session(), relay_watch, "relay-check").version
    response = client.post(f"{base}/nostr_admin_relays", data=tool_form(csrf, name="relays"))
    assert response.status_code == 303
    with app.app_context():
        session = db.get_session()
        assert store.get_variable(session, relay_watch, "admin_relays").tool == "relays"
        # The skill writes {{admin_relays}}, the binding's name: it needs no change.
        assert store.get_skill(session, relay_watch, "relay-check").version == before
    assert "Renamed it in binding admin_relays." in client.get(f"{base}/relays").data.decode()
    preview = client.get("/agents/Relay%20Watch/preview")
    assert b"missing-tool" not in preview.data


def test_rename_rewrites_a_direct_use(client, simon, csrf, app):
    with app.app_context():
        session = db.get_session()
        row = store.get_skill(session, simon, "chat")
        store.save_skill(session, simon, "chat", expected_version=row.version,
                         content=row.content + "\n{{agent_identity}} and \\{{agent_identity}}\n")
    client.post(IDENTITY, data=tool_form(csrf, name="identity_tool"))
    with app.app_context():
        content = store.get_skill(db.get_session(), simon, "chat").content
    assert "{{identity_tool}} and \\{{agent_identity}}" in content


def test_a_rename_is_one_change_and_bumps_each_changed_skill_once(client, simon, csrf, app):
    with app.app_context():
        session = db.get_session()
        row = store.get_skill(session, simon, "chat")
        store.save_skill(session, simon, "chat", expected_version=row.version,
                         content=row.content + "{{agent_identity}} {{ agent_identity }}\n")
        versions = {s.d_tag: s.version for s in store.list_skills(session, simon)}
    response = client.post(IDENTITY, data=tool_form(csrf, name="identity_tool"))
    assert response.status_code == 303
    with app.app_context():
        session = db.get_session()
        after = {s.d_tag: s.version for s in store.list_skills(session, simon)}
        assert store.get_variable(session, simon, "agent_npub").tool == "identity_tool"
    assert after == {**versions, "chat": versions["chat"] + 1}
    html = client.get(f"{TOOLS}/identity_tool").data.decode()
    assert "Renamed it in binding agent_npub, skill chat." in html


def test_a_rename_that_meets_a_skill_saved_meanwhile_changes_nothing(
        client, simon, csrf, app, tool, monkeypatch, database_url):
    with app.app_context():
        session = db.get_session()
        row = store.get_skill(session, simon, "chat")
        store.save_skill(session, simon, "chat", expected_version=row.version,
                         content=row.content + "{{agent_identity}}\n")
    renamed_uses = renames.renamed_uses

    def saved_meanwhile(*args, **kwargs):
        # Another author saves `chat` after the rename has read it.
        with db.session_scope(database_url) as other:
            current = store.get_skill(other, "Simon", "chat")
            store.save_skill(other, "Simon", "chat", expected_version=current.version,
                             content=current.content + "meanwhile\n")
        return renamed_uses(*args, **kwargs)

    monkeypatch.setattr(renames, "renamed_uses", saved_meanwhile)
    response = client.post(IDENTITY, data=tool_form(csrf, name="identity_tool"))
    assert response.status_code == 422
    assert "not renamed: skill chat was saved meanwhile" in response.data.decode()
    tool("Simon", "agent_identity")
    with app.app_context():
        session = db.get_session()
        assert store.get_variable(session, simon, "agent_npub").tool == "agent_identity"
        content = store.get_skill(session, simon, "chat").content
    assert content.endswith("{{agent_identity}}\nmeanwhile\n")


# -- delete


def test_delete_asks_first_then_deletes(client, simon, csrf, tool):
    ask = client.get(f"{IDENTITY}/delete")
    assert ask.status_code == 200 and is_page(ask)
    html = ask.data.decode()
    assert "Delete the mock tool <code>agent_identity</code>?" in html
    assert "variable <code>agent_npub</code>" in html
    fragment = client.get(f"{IDENTITY}/delete", headers=HTMX)
    assert starts_with(fragment, b'<section id="confirm-delete"')
    tool("Simon", "agent_identity")  # asking deleted nothing
    response = client.post(f"{IDENTITY}/delete", data={"csrf_token": csrf})
    assert response.status_code == 303 and response.headers["Location"].endswith(TOOLS)
    with pytest.raises(store.NotFound):
        tool("Simon", "agent_identity")


# -- errors


@pytest.mark.parametrize("method, url", [
    ("get", f"{TOOLS}/nope"),
    ("get", f"{TOOLS}/nope/delete"),
    ("post", f"{TOOLS}/nope"),
    ("post", f"{TOOLS}/nope/delete"),
    ("get", "/agents/Nobody/tools"),
    ("post", "/agents/Nobody/tools"),
])
def test_missing_entries_are_404(client, simon, csrf, method, url):
    response = getattr(client, method)(url, data=tool_form(csrf) if method == "post" else None)
    assert response.status_code == 404
    assert b"404 Not Found" in response.data and b"Traceback" not in response.data


def test_preview_of_a_missing_tool_is_404(client, simon, csrf):
    response = client.post(PREVIEW, data=tool_form(csrf, original="nope"), headers=HTMX)
    assert response.status_code == 404
    assert starts_with(response, b'<section id="error"')


@pytest.mark.parametrize("url", [TOOLS, IDENTITY, f"{IDENTITY}/delete", PREVIEW])
def test_csrf_failure_changes_nothing(client, simon, csrf, tool, url):
    response = client.post(url, data=tool_form("forged", name="forged"))
    assert response.status_code == 400
    assert b"security token" in response.data
    assert tool("Simon", "agent_identity").name == "agent_identity"
    with pytest.raises(store.NotFound):
        tool("Simon", "forged")


def test_bad_json_body_is_422(client, simon, csrf):
    response = client.post(TOOLS, data="{nope", content_type="application/json",
                           headers={"X-CSRFToken": csrf})
    assert response.status_code == 422
    assert b"body: not valid JSON" in response.data


# -- untrusted results


def test_hostile_results_reach_nothing_executable(client, simon, csrf):
    content = json.dumps({"html": XSS, "text": CORPUS, "<img src=x onerror=alert(1)>": 1})
    result = json.dumps({"success": True, "content": content})
    by_args = json.dumps([{"args": "<script>", "result": {"success": True, "content": CORPUS}}])
    data = tool_form(csrf, name="evil", description=CORPUS, result=result, results_by_args=by_args)
    for headers in ({}, HTMX):
        response = client.post(PREVIEW, data=data, headers=headers)
        assert executable_markup(response.data.decode()) == []
    assert client.post(TOOLS, data=data).status_code == 303
    for url in (f"{TOOLS}/evil", TOOLS, f"{TOOLS}/evil/delete"):
        html = client.get(url).data.decode()
        assert executable_markup(html) == []
    assert "&lt;script&gt;alert(&#39;script&#39;)&lt;/script&gt;" in client.get(
        f"{TOOLS}/evil").data.decode()


def test_hostile_tool_names_are_escaped(client, simon, csrf):
    name = '"><svg/onload=alert(1)>'
    assert client.post(TOOLS, data=tool_form(csrf, name=name)).status_code == 303
    from urllib.parse import quote

    for url in (TOOLS, f"{TOOLS}/{quote(name, safe='')}"):
        response = client.get(url)
        assert response.status_code == 200
        assert executable_markup(response.data.decode()) == []
