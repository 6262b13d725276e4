"""The activity pages (an agent's and the instance's) and who is shown on history and log
pages, as pages and htmx fragments."""

from __future__ import annotations

import pytest

from tests.support.pages import HTMX, executable_markup, fragment_root, is_page
from webapp import store
from webapp.schema import db
from webapp.views.activity import PAGE_SIZE

AGENT_ACTIVITY = "/agents/Simon/activity"
ADMIN_ACTIVITY = "/admin/activity"


@pytest.fixture
def changes(app, simon) -> None:
    """Simon imported locally, then chat saved by alice and identity disabled by bob."""
    with app.app_context():
        session = db.get_session()
        with store.acting_as("alice"):
            store.save_skill(session, "Simon", "chat", expected_version=1, content="hi\n")
        with store.acting_as("bob"):
            store.set_skill_enabled(session, "Simon", "identity", False)


def test_agent_activity_page_and_fragment(client, changes):
    response = client.get(AGENT_ACTIVITY)
    assert response.status_code == 200 and is_page(response)
    html = response.data.decode()
    table = html[html.find("</form>"):]
    assert table.index("skill.toggle") < table.index("skill.save") < table.index("<code>import")
    assert "<td>alice</td>" in html and "<td>bob</td>" in html and "<td>local</td>" in html
    assert ">User" in html and ">Kind" in html and ">Agent\n" not in html
    assert '<button type="submit">Filter</button>' in html
    assert 'href="/agents/Simon/activity" aria-current="page">Activity</a>' in html
    fragment = client.get(AGENT_ACTIVITY, headers=HTMX)
    assert not is_page(fragment) and "HX-Request" in fragment.headers["Vary"]
    assert fragment_root(fragment).startswith(b'<section id="activity"')


def test_admin_activity_page_and_fragment(client, changes, relay_watch):
    html = client.get(ADMIN_ACTIVITY).data.decode()
    assert ">Agent" in html and "Relay Watch" in html and "Simon" in html
    assert 'href="/agents/Simon/activity">Simon</a>' in html
    assert 'aria-label="Agent pages"' not in html
    fragment = client.get(ADMIN_ACTIVITY, headers=HTMX)
    assert fragment_root(fragment).startswith(b'<section id="activity"')


@pytest.mark.parametrize("query, shown, hidden", [
    ("user=alice", ["skill.save"], ["skill.toggle", "<code>import"]),
    ("user=local", ["<code>import"], ["skill.save", "skill.toggle"]),
    ("kind=skill", ["skill.save", "skill.toggle"], ["<code>import"]),
    ("kind=skill.toggle&user=bob", ["skill.toggle"], ["skill.save"]),
    ("agent=Relay+Watch", ["Relay Watch</a>"], ["skill.save"]),
    ("user=nobody", ["No recorded change matches the filter."], ["skill.save"]),
])
def test_filters(client, changes, relay_watch, query, shown, hidden):
    html = client.get(f"{ADMIN_ACTIVITY}?{query}").data.decode()
    table = html[html.find("</form>"):]
    for text in shown:
        assert text in table, text
    for text in hidden:
        assert text not in table, text


def test_the_filter_keeps_what_was_asked(client, changes):
    html = client.get(f"{ADMIN_ACTIVITY}?user=alice&kind=skill.save").data.decode()
    assert '<option value="alice" selected>' in html
    assert '<option value="skill.save" selected>' in html


@pytest.mark.parametrize("query, reason", [
    ("kind=nonsense", b"must be one of the activity kinds"),
    ("before=x", b"before: must be a whole number"),
    ("before=0", b"before: must be at least 1"),
])
def test_bad_filters_are_422(client, changes, query, reason):
    for url in (ADMIN_ACTIVITY, AGENT_ACTIVITY):
        response = client.get(f"{url}?{query}")
        assert response.status_code == 422 and reason in response.data


def test_an_unknown_agent_is_404(client, changes):
    assert client.get("/agents/Nobody/activity").status_code == 404


def test_paging(app, client, simon):
    with app.app_context():
        session = db.get_session()
        for n in range(PAGE_SIZE + 5):
            store.create_tool(session, "Simon", f"tool-{n}")
    html = client.get(AGENT_ACTIVITY).data.decode()
    assert f">tool-{PAGE_SIZE + 4}<" in html and ">tool-5<" in html and ">tool-4<" not in html
    older = html.split('rel="next"')[0].rsplit('href="', 1)[1].split('"')[0]
    assert "before=" in older
    second = client.get(older.replace("&amp;", "&")).data.decode()
    assert ">tool-4<" in second and ">tool-5<" not in second and "← Newest" in second
    assert 'rel="next"' not in second


def test_history_and_log_show_who(app, client, changes, csrf):
    html = client.get("/agents/Simon/skills/chat/history").data.decode()
    assert "<th>By</th>" in html and "<td>alice</td>" in html and "<td>local</td>" in html
    revision = client.get("/agents/Simon/skills/chat/history/2").data.decode()
    assert "<dt>By</dt><dd>alice</dd>" in revision
    with app.app_context(), store.acting_as("carol"):
        session = db.get_session()
        from webapp.pipeline import assemble

        workspace = store.load_workspace(session, "Simon")
        context = assemble(workspace, workspace.scenarios[0].name)
        entry = store.log_context(session, "Simon", context)
    log = client.get("/agents/Simon/log").data.decode()
    assert "<th>By</th>" in log and "<td>carol</td>" in log
    shown = client.get(f"/agents/Simon/log/{entry.id}").data.decode()
    assert "<dt>By</dt><dd>carol</dd>" in shown


def test_a_change_from_the_web_is_recorded(client, simon, skill_form):
    response = client.post("/agents/Simon/skills/chat", data=skill_form("new text\n"))
    assert response.status_code == 303
    html = client.get(f"{AGENT_ACTIVITY}?kind=skill.save").data.decode()
    assert '<td><a href="/agents/Simon/skills/chat/history">chat</a></td>' in html
    assert "version 2" in html


def test_hostile_names_are_bounded_and_escaped(app, client):
    evil = '"><script>alert(1)</script>' + "x" * 150
    with app.app_context():
        session = db.get_session()
        with store.acting_as('<img src=x onerror=alert(1)>'):
            store.create_agent(session, "Mallory")
            store.create_skill(session, "Mallory", evil, content="x")
            store.save_skill(session, "Mallory", evil, expected_version=1, content="y",
                             note="n" * 5000)
    for url in ("/agents/Mallory/activity", ADMIN_ACTIVITY):
        html = client.get(url).data.decode()
        assert executable_markup(html) == []
        assert "&lt;img src=x onerror=alert(1)&gt;" in html
        assert "&#34;&gt;&lt;script&gt;" in html
        assert "n" * 300 not in html and "n" * 200 in html
