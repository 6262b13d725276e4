"""Finding things on a workspace: the skill list's filter, the whole-order route behind
drag and drop, and the where-used page, each as page and fragment, with hostile input."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from tests.support.pages import HTMX, executable_markup, fragment_root, is_page
from tests.support.xss import EVIL_TAG, xss_bundle
from webapp import store
from webapp.pipeline import load_bundle
from webapp.schema import db

ORDER = "/agents/Simon/order"


def order_of(app, agent: str = "Simon") -> list[str]:
    with app.app_context():
        return [s.d_tag for s in store.list_skills(db.get_session(), agent)]


def shown(html: str) -> list[str]:
    """The d_tags of the list's items that are not hidden, in order."""
    return re.findall(r'data-d-tag="([^"]*)">', html)


def items(html: str) -> list[str]:
    return re.findall(r'data-d-tag="([^"]*)"', html)


# -- the filter


def test_the_editor_page_filters_with_q_without_javascript(client, simon):
    html = client.get("/agents/Simon/skills/chat?q=DM").data.decode()
    assert 'value="DM"' in html and "2 of 3 skills" in html
    assert items(html) == ["identity", "personality", "chat"]  # all there, for the order
    assert shown(html) == ["personality", "chat"]
    # Links to other skills keep the filter; the no-JS form is a GET to the editor.
    assert 'href="/agents/Simon/skills/personality?q=DM"' in html
    assert 'method="get" action="/agents/Simon/skills/chat"' in html
    assert "3 skills</p>" in client.get("/agents/Simon/skills/chat").data.decode()


def test_the_filter_matches_text_and_says_when_nothing_matches(client, simon):
    html = client.get("/agents/Simon/skills/chat?q=sovereign").data.decode()
    assert shown(html) == ["identity"]
    html = client.get("/agents/Simon/skills/chat?q=no+such+words").data.decode()
    assert shown(html) == [] and "0 of 3 skills: none matches “no such words”" in html


def test_the_filter_fragment(client, simon):
    response = client.get("/agents/Simon/skill-list?current=chat&q=person", headers=HTMX)
    assert response.status_code == 200 and not is_page(response)
    assert fragment_root(response).startswith(b'<nav id="skill-list"')
    html = response.data.decode()
    assert shown(html) == ["personality"] and "1 of 3 skills" in html
    assert 'id="skill-items"' in html and 'id="skill-count"' in html  # what htmx selects
    assert "HX-Request" in response.headers["Vary"]


def test_the_filter_route_without_htmx_goes_to_the_editor(client, simon):
    response = client.get("/agents/Simon/skill-list?current=chat&q=person&scenario=nope")
    assert response.status_code == 303
    assert response.headers["Location"] == "/agents/Simon/skills/chat?q=person"
    response = client.get("/agents/Simon/skill-list?q=x")
    assert response.headers["Location"] == "/agents/Simon"
    assert client.get("/agents/Nobody/skill-list", headers=HTMX).status_code == 404


def test_a_huge_or_hostile_filter_is_cut_and_escaped(client, simon):
    huge = "<script>alert(1)</script>" + "x" * 5000
    html = client.get("/agents/Simon/skills/chat", query_string={"q": huge}).data.decode()
    assert executable_markup(html) == []
    assert "x" * 201 not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert shown(html) == []


def test_toggle_and_move_keep_the_filter(client, simon, csrf):
    data = {"csrf_token": csrf, "current": "chat", "q": "dm"}
    toggled = client.post("/agents/Simon/skills/personality/enabled", headers=HTMX,
                          data={**data, "enabled": "0"})
    html = toggled.data.decode()
    assert 'id="skill-filter" type="search" name="q" value="dm"' in html
    assert shown(html) == ["personality", "chat"]
    moved = client.post("/agents/Simon/skills/chat/move", data={**data, "direction": "up"})
    assert moved.status_code == 303
    assert moved.headers["Location"] == "/agents/Simon/skills/chat?q=dm"


def test_a_save_keeps_the_filter(client, simon, skill_form):
    page = client.get("/agents/Simon/skills/chat?q=dm").data.decode()
    assert '<input type="hidden" name="q" value="dm">' in page  # in the skill form
    saved = client.post("/agents/Simon/skills/chat", data=skill_form("Saved.", q="dm"))
    assert saved.status_code == 303
    assert saved.headers["Location"] == "/agents/Simon/skills/chat?q=dm"
    in_place = client.post("/agents/Simon/skills/chat", headers={"X-Save-In-Place": "1"},
                           data=skill_form("Saved again.", version=2, q="dm"))
    assert in_place.get_json()["url"] == "/agents/Simon/skills/chat?q=dm"


# -- the whole order (drag and drop)


def test_order_fragment_sets_the_order_and_refreshes_the_preview(app, client, simon, csrf):
    response = client.post(ORDER, headers=HTMX, data={
        "csrf_token": csrf, "current": "chat", "order": ["chat", "identity", "personality"]})
    assert response.status_code == 200
    assert fragment_root(response).startswith(b'<nav id="skill-list"')
    assert response.headers["HX-Trigger"] == "workspace-changed"
    assert items(response.data.decode()) == ["chat", "identity", "personality"]
    assert order_of(app) == ["chat", "identity", "personality"]


def test_order_page_redirects_to_the_editor(app, client, simon, csrf):
    response = client.post(ORDER, data={"csrf_token": csrf, "current": "personality", "q": "i",
                                        "order": ["personality", "chat", "identity"]})
    assert response.status_code == 303
    assert response.headers["Location"] == "/agents/Simon/skills/personality?q=i"
    assert order_of(app) == ["personality", "chat", "identity"]
    page = client.get(response.headers["Location"])
    assert is_page(page) and items(page.data.decode()) == ["personality", "chat", "identity"]


def test_order_as_json(app, client, simon, csrf):
    response = client.post(ORDER, json={"order": ["identity", "chat", "personality"]},
                           headers={"X-CSRFToken": csrf})
    assert response.status_code == 303 and response.headers["Location"] == "/agents/Simon"
    assert order_of(app) == ["identity", "chat", "personality"]


@pytest.mark.parametrize("order, reason", [
    (["chat", "identity"], "missing: personality"),
    (["chat", "identity", "personality", "ghost"], "unknown: ghost"),
    (["chat", "chat", "identity", "personality"], "repeated: chat"),
    ([], "missing: identity, personality, chat"),
])
def test_a_bad_order_is_422_and_changes_nothing(app, client, simon, csrf, order, reason):
    data = {"csrf_token": csrf, "current": "chat", "order": order}
    page = client.post(ORDER, data=data)
    assert page.status_code == 422 and is_page(page)
    assert reason in page.data.decode()
    fragment = client.post(ORDER, data=data, headers=HTMX)
    assert fragment.status_code == 422
    html = fragment.data.decode()
    # The list as saved (the drop undone), with the reason, in place of the list.
    assert fragment_root(fragment).startswith(b'<nav id="skill-list"')
    assert f"Not reordered: must list every skill once ({reason}" in html
    assert items(html) == ["identity", "personality", "chat"]
    assert "HX-Trigger" not in fragment.headers
    assert order_of(app) == ["identity", "personality", "chat"]


@pytest.mark.parametrize("body, reason", [
    ({"order": "chat"}, "must be a list of d_tags"),
    ({"order": {"chat": 1}}, "must be a list of d_tags"),
    ({"order": ["chat", 1, "identity"]}, "must be a list of d_tags (text)"),
    ({"order": [["chat"], "identity", "personality"]}, "must be a list of d_tags (text)"),
    ({"order": None}, "must be a list of d_tags"),
    ({}, "must be a list of d_tags"),
])
def test_an_order_that_is_not_a_list_of_d_tags_is_422(app, client, simon, csrf, body, reason):
    response = client.post(ORDER, json=body, headers={"X-CSRFToken": csrf})
    assert response.status_code == 422 and reason in response.data.decode()
    assert order_of(app) == ["identity", "personality", "chat"]


def test_a_huge_order_gets_a_short_answer(app, client, simon, csrf):
    order = ["identity", "personality", "chat"] + [f"n{i}" for i in range(60_000)]
    response = client.post(ORDER, json={"order": order}, headers={"X-CSRFToken": csrf, **HTMX})
    assert response.status_code == 422
    html = response.data.decode()
    assert "unknown: n0, n1, n2, n3, n4 and 59995 more" in html and "n5," not in html
    assert len(html) < 20_000
    assert order_of(app) == ["identity", "personality", "chat"]


def test_order_needs_the_csrf_token(app, client, simon, csrf):
    data = {"current": "chat", "order": ["chat", "identity", "personality"]}
    assert client.post(ORDER, data=data).status_code == 400
    assert client.post(ORDER, data={**data, "csrf_token": "wrong"}, headers=HTMX).status_code == 400
    assert client.post(ORDER, json=data).status_code == 400
    assert order_of(app) == ["identity", "personality", "chat"]


def test_order_of_a_missing_agent_is_404(client, simon, csrf):
    response = client.post("/agents/Nobody/order", data={"csrf_token": csrf, "order": ["x"]})
    assert response.status_code == 404


def test_the_lists_buttons_submit_one_shared_form(client, simon):
    html = client.get("/agents/Simon/skills/chat?q=dm").data.decode()
    assert html.count('<form id="skill-action" method="post" hidden>') == 1
    shared = html[html.index('<form id="skill-action"'):]
    assert '<input type="hidden" name="q" value="dm">' in shared[:shared.index("</form>")]
    # Without JavaScript each button posts that form to its own address.
    assert html.count('form="skill-action" formaction="/agents/Simon/skills/chat/move" '
                      'hx-post="/agents/Simon/skills/chat/move" name="direction"') == 2
    assert ('form="skill-action" formaction="/agents/Simon/skills/personality/enabled" '
            'hx-post="/agents/Simon/skills/personality/enabled" name="enabled" value="0"') in html
    assert '<ol id="skill-items" hx-include="#skill-action"' in html


def test_the_list_carries_the_order_form_and_a_handle_per_skill(client, simon):
    html = client.get("/agents/Simon/skills/chat").data.decode()
    form = re.search(r'<form id="skill-order" method="post" action="/agents/Simon/order"[^>]*>',
                     html)
    assert form and 'hx-post="/agents/Simon/order"' in form.group(0)
    assert html.count('form="skill-order"') == 3 and html.count('class="drag-handle"') == 3
    assert "/static/vendor/sortablejs-1.15.7.min.js" in html
    # Only the editor loads SortableJS.
    assert "sortablejs" not in client.get("/agents/Simon/tools").data.decode()


# -- where used


def uses(client, name: str, **kwargs):
    return client.get("/agents/Simon/uses", query_string={"name": name}, **kwargs)


def test_where_used_page_and_fragment_for_a_skill(client, simon):
    page = uses(client, "identity")
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    assert 'id="uses-name" type="search" name="name" value="identity"' in html
    assert "skill <a href=\"/agents/Simon/skills/identity\"><code>identity</code></a>" in html
    # personality embeds it on its line 2, with a link to that line.
    assert 'href="/agents/Simon/skills/personality#L2">line 2</a>' in html
    fragment = uses(client, "identity", headers=HTMX)
    assert not is_page(fragment)
    assert fragment_root(fragment).startswith(b'<section id="uses"')
    assert "HX-Request" in fragment.headers["Vary"]


def test_where_used_for_a_binding(client, simon):
    html = uses(client, "agent_npub").data.decode()
    assert "binding <a href=\"/agents/Simon/variables/agent_npub\">" in html
    assert "calls the tool agent_identity" in html
    assert 'href="/agents/Simon/skills/identity#L3">line 3</a>' in html
    assert "- **npub**: {{agent_npub}}" in html


def test_where_used_for_a_mock_tool(client, simon):
    html = uses(client, "agent_identity").data.decode()
    assert "mock tool <a href=\"/agents/Simon/tools/agent_identity\">" in html
    bindings = html[html.index('id="uses-bindings"'):]
    assert '<a href="/agents/Simon/variables/agent_npub"><code>agent_npub</code></a>' in bindings
    assert '— used by <a href="/agents/Simon/skills/identity"><code>identity</code></a>' in bindings
    assert "No skill writes <code>{{agent_identity}}</code>" in html


def test_where_used_for_a_built_in(client, simon):
    html = uses(client, "message").data.decode()
    assert "built-in <code>message</code>" in html and "another name for message_current" in html
    assert 'href="/agents/Simon/skills/chat#L8">line 8</a>' in html


def test_where_used_for_an_unknown_name_suggests(client, simon):
    html = uses(client, "agent_npubb").data.decode()
    assert "<strong>Unknown</strong>" in html
    assert 'href="/agents/Simon/uses?name=agent_npub"><code>agent_npub</code></a>' in html


def test_where_used_without_a_name_asks_for_one(client, simon):
    html = client.get("/agents/Simon/uses").data.decode()
    assert "Type a name" in html
    assert client.get("/agents/Nobody/uses?name=x").status_code == 404


@pytest.mark.parametrize("name", ["<script>alert(1)</script>", '"><svg/onload=alert(1)>',
                                  "{{identity}}", "a b\nc", "\x00", "../../x", "é" * 200, "%s%n"])
def test_where_used_with_a_hostile_name(client, simon, name):
    for headers in ({}, HTMX):
        response = uses(client, name, headers=headers)
        assert response.status_code == 200
        assert executable_markup(response.data.decode()) == []


@pytest.mark.parametrize("length", [201, 10_000, 200_000])
def test_where_used_with_a_huge_name_is_422_without_echoing_it(client, simon, length):
    for headers in ({}, HTMX):
        response = uses(client, "A" * length, headers=headers)
        assert response.status_code == 422
        html = response.data.decode()
        assert "AAAA" not in html and f"not {length}" in html


def test_where_used_is_safe_on_a_hostile_workspace(app, client):
    with app.app_context():
        store.import_bundle(db.get_session(), load_bundle(xss_bundle()))
    for name in ("payload", "evil_tool", EVIL_TAG, "evil"):
        response = client.get("/agents/Mallory/uses", query_string={"name": name})
        assert response.status_code == 200
        assert executable_markup(response.data.decode()) == []
    html = client.get("/agents/Mallory/uses", query_string={"name": EVIL_TAG}).data.decode()
    assert 'href="/agents/Mallory/skills/evil#L' in html  # {{EVIL_TAG}} is written in evil
    assert "/agents/Mallory/skills/" + quote(EVIL_TAG, safe="/=()") in html  # it is a skill


def test_the_editor_tools_and_variables_link_to_where_used(client, simon):
    assert 'href="/agents/Simon/uses?name=chat" title="Where {{chat}} is used">Where used</a>' \
        in client.get("/agents/Simon/skills/chat").data.decode()
    assert 'href="/agents/Simon/uses?name=agent_identity">where used' in \
        client.get("/agents/Simon/tools/agent_identity").data.decode()
    assert 'href="/agents/Simon/uses?name=agent_npub">Where used</a>' in \
        client.get("/agents/Simon/variables").data.decode()
