"""Review and publish: the Changes page (page and fragment), publishing, the stale-form
conflict, the rollback, snapshot downloads and the header's badge."""

from __future__ import annotations

import re

import pytest

from tests.support.pages import HTMX, fragment_root, is_page
from webapp import store
from webapp.textdiff.lines import diff_lines
from webapp.views.publish import labelled

CHANGES = "/agents/Simon/changes"
PUBLISH = "/agents/Simon/changes/publish"
BADGE = b'<span class="badge unpublished">unpublished changes</span>'


@pytest.fixture
def published(simon, in_app) -> str:
    """Simon published once as snapshot #1 (in the local mode); returns the agent's name."""
    in_app(lambda s: store.publish(s, "Simon", "first review", expected_latest=0))
    return simon


def edit_chat(in_app, content: str) -> None:
    def save(session):
        row = store.get_skill(session, "Simon", "chat")
        store.save_skill(session, "Simon", "chat", expected_version=row.version, content=content)

    in_app(save)


def chat_content(in_app) -> str:
    return in_app(lambda s: store.get_skill(s, "Simon", "chat").content)


def labels(response) -> list[str]:
    """The provenance labels of the changed (added or removed) lines on the page."""
    rows = re.findall(rb'<tr class="line-(add|del)">.*?<td class="provenance">(.*?)</td>',
                      response.data, re.S)
    return [re.sub(rb"<[^>]+>", b"", label).decode() for _, label in rows]


def test_a_never_published_agent_says_so_and_offers_the_publish_form(client, simon):
    page = client.get(CHANGES)
    assert page.status_code == 200 and is_page(page)
    assert b"Nothing has been published yet" in page.data
    assert b'<label for="publish-note">Note</label>' in page.data
    assert b'name="expected_latest" value="0"' in page.data
    assert b">Publish</button>" in page.data
    fragment = client.get(CHANGES, headers=HTMX)
    assert fragment.status_code == 200 and not is_page(fragment)
    assert fragment_root(fragment).startswith(b'<section id="changes"')
    assert "HX-Request" in fragment.headers["Vary"]


def test_publishing_from_the_page_makes_snapshot_one(client, simon, csrf, in_app):
    response = client.post(PUBLISH, data={"csrf_token": csrf, "note": "Ship it",
                                          "expected_latest": "0"})
    assert response.status_code == 303 and response.location.endswith(CHANGES)
    page = client.get(CHANGES)
    assert b"Published snapshot #1." in page.data
    assert b"The workspace is what was published." in page.data
    assert b">Publish</button>" not in page.data, "nothing to publish: no form"
    (snapshot,) = in_app(lambda s: store.list_snapshots(s, "Simon"))
    assert (snapshot.number, snapshot.note, snapshot.published_by) == (1, "Ship it", None)
    assert snapshot.short_digest.encode() in page.data
    assert b"Ship it" in page.data and b"local" in page.data


def test_the_changes_page_diffs_every_scenario_with_provenance(client, published, in_app):
    before = chat_content(in_app)
    lines = before.splitlines()
    edit_chat(in_app, "\n".join([*lines[:-1], "Ask before acting on {{agent_npub}}.",
                                 "A brand new closing line."]) + "\n")
    for response in (client.get(CHANGES), client.get(CHANGES, headers=HTMX)):
        assert response.status_code == 200
        assert b"admin asks about mentions" in response.data
        found = labels(response)
        removed = f"chat:{len(lines)}"
        assert removed in found, "a removed line is labelled from the published context"
        assert f"chat:{len(lines) + 1}" in found, "an added line from the current one"
        assert b"Document" in response.data and b"<summary>Messages</summary>" in response.data
        # The skills changed since, with their versions.
        assert re.search(rb'chat</a></td>\s*<td>v1</td>\s*<td>v2</td>', response.data)
        assert b'name="expected_latest" value="1"' in response.data
    assert is_page(client.get(CHANGES))


def test_a_tool_change_is_labelled_with_the_variable_it_fills(client, simon, in_app):
    def add_alerts(session):
        store.create_tool(session, "Simon", "alerts",
                          result={"success": True, "content": '["disk full", "relay down"]'})
        store.create_variable(session, "Simon", "alerts", tool="alerts")

    in_app(add_alerts)
    edit_chat(in_app, chat_content(in_app) + "\nOpen alerts:\n\n{{alerts}}\n")
    in_app(lambda s: store.publish(s, "Simon", "", expected_latest=0))
    in_app(lambda s: store.update_tool(
        s, "Simon", "alerts", result={"success": True, "content": '["disk full", "relay up"]'}))
    page = client.get(CHANGES)
    assert page.status_code == 200
    assert b"tool <strong>alerts</strong> changed" in page.data
    assert b"No skill has a new version." in page.data
    found = labels(page)
    assert found and set(found) == {"variable:alerts"}, found
    assert b"relay <span class=\"word-changed\">up</span>" in page.data


def test_a_stale_form_gets_a_409_that_keeps_the_note(client, published, csrf, in_app):
    edit_chat(in_app, "system:\nChanged.\n")
    # Someone else published #2 while this reviewer looked at the page for #1.
    in_app(lambda s: store.publish(s, "Simon", "theirs", expected_latest=1))
    edit_chat(in_app, "system:\nChanged again.\n")
    response = client.post(PUBLISH, data={"csrf_token": csrf, "note": "my <careful> note",
                                          "expected_latest": "1"})
    assert response.status_code == 409 and is_page(response)
    assert b"snapshot #2 was published while you were reviewing" in response.data
    assert b"my &lt;careful&gt; note</textarea>" in response.data
    assert b'name="expected_latest" value="2"' in response.data
    assert len(in_app(lambda s: store.list_snapshots(s, "Simon"))) == 2


def test_publishing_nothing_new_or_a_bad_note_is_a_422(client, published, csrf, in_app):
    nothing = client.post(PUBLISH, data={"csrf_token": csrf, "note": "again",
                                         "expected_latest": "1"})
    assert nothing.status_code == 422
    assert b"nothing to publish" in nothing.data
    edit_chat(in_app, "system:\nChanged.\n")
    nul = client.post(PUBLISH, data={"csrf_token": csrf, "note": "a\x00b",
                                     "expected_latest": "1"})
    assert nul.status_code == 422 and b"<strong>note</strong>" in nul.data
    for bad in ("", "x", "-1", "99999999999999999999999"):
        response = client.post(PUBLISH, data={"csrf_token": csrf, "expected_latest": bad})
        assert response.status_code == 422, bad
    assert client.post(PUBLISH, data={"expected_latest": "1"}).status_code == 400, "CSRF"
    assert len(in_app(lambda s: store.list_snapshots(s, "Simon"))) == 1


def test_publish_again_is_the_rollback(client, published, csrf, in_app):
    first = chat_content(in_app)
    edit_chat(in_app, "system:\nA mistake.\n")
    in_app(lambda s: store.publish(s, "Simon", "oops", expected_latest=1))
    page = client.get(CHANGES)
    assert page.data.count(b">Publish again</button>") == 1, "on the older snapshot only"
    response = client.post("/agents/Simon/snapshots/1/republish",
                           data={"csrf_token": csrf, "note": "Rollback to #1",
                                 "expected_latest": "2"})
    assert response.status_code == 303
    page = client.get(CHANGES)
    assert b"Published snapshot #1 again as #3." in page.data
    assert b"(#1 again)" in page.data
    workspace = in_app(lambda s: store.published_workspace(s, "Simon"))
    assert workspace.skills_by_tag["chat"].content == first
    assert chat_content(in_app) == "system:\nA mistake.\n", "the draft is left alone"
    stale = client.post("/agents/Simon/snapshots/1/republish",
                        data={"csrf_token": csrf, "expected_latest": "2"})
    assert stale.status_code == 409
    missing = client.post("/agents/Simon/snapshots/9/republish",
                          data={"csrf_token": csrf, "expected_latest": "3"})
    assert missing.status_code == 404


def test_each_snapshot_downloads_as_its_bundle(client, published, in_app):
    response = client.get("/agents/Simon/snapshots/1/bundle")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert "attachment" in response.headers["Content-Disposition"]
    assert "Simon.published-1.json" in response.headers["Content-Disposition"]
    snapshot = in_app(lambda s: store.get_snapshot(s, "Simon", 1))
    assert response.data.decode() == snapshot.bundle
    assert client.get("/agents/Simon/snapshots/2/bundle").status_code == 404
    assert client.get("/agents/Nobody/snapshots/1/bundle").status_code == 404
    assert b"/agents/Simon/snapshots/1/bundle" in client.get(CHANGES).data


def test_the_badge_follows_the_digest_on_the_agents_pages(client, simon, csrf, in_app):
    for path in ("/agents/Simon/skills/chat", "/agents/Simon/tools", CHANGES):
        assert BADGE in client.get(path).data, path
    client.post(PUBLISH, data={"csrf_token": csrf, "expected_latest": "0"})
    assert BADGE not in client.get("/agents/Simon/skills/chat").data
    edit_chat(in_app, "system:\nChanged.\n")
    assert BADGE in client.get("/agents/Simon/tools").data
    assert BADGE not in client.get("/").data, "no agent, no badge"


def test_log_entries_show_what_they_were_assembled_from(client, simon, csrf, in_app):
    response = client.post("/agents/Simon/preview/log", data={"csrf_token": csrf})
    assert response.status_code in (200, 303)
    (entry,) = in_app(lambda s: store.list_log(s, "Simon"))
    assert entry.source == "draft"
    in_app(lambda s: store.log_context(s, "Simon", _context(s), source="published 1"))
    assert re.search(rb'<td>published <a href="/agents/Simon/snapshots/1">#1</a></td>.*'
                     rb"<td>draft</td>",
                     client.get("/agents/Simon/log").data, re.S)
    page = client.get(f"/agents/Simon/log/{entry.id}")
    assert b"<dt>Assembled from</dt><dd>draft</dd>" in page.data


def _context(session):
    from webapp.pipeline import assemble

    return assemble(store.load_workspace(session, "Simon"))


def test_a_large_change_is_shown_bounded():
    old = "\n".join(f"line {i}" for i in range(5000))
    new = "\n".join(f"line {i}" + (" changed" if i % 10 == 0 else "") for i in range(5000))
    diff = diff_lines(old, new)
    shown = labelled(diff, (), (), most=400)
    assert sum(len(h.lines) for h in shown.hunks) <= 400
    assert shown.hidden == sum(len(h.lines) for h in diff.hunks) - sum(
        len(h.lines) for h in shown.hunks) > 0
    assert (shown.added, shown.removed) == (500, 500)


def test_changed_scenarios_past_the_first_few_are_panels_loaded_when_shown(client, simon, in_app):
    for name in ("second", "third & <last>"):
        in_app(lambda s, name=name: store.create_scenario(s, "Simon", name, trigger="dm",
                                                          message=f"Hello from {name}"))
    in_app(lambda s: store.publish(s, "Simon", "", expected_latest=0))
    edit_chat(in_app, chat_content(in_app) + "\nA line every scenario gets.\n")
    page = client.get(CHANGES)
    assert page.data.count(b"A line every scenario gets.") == 2 * 2, "two scenarios inline"
    url = "/agents/Simon/changes/scenario?name=third+%26+%3Clast%3E"
    assert f'hx-get="{url.replace("&", "&amp;")}"'.encode() in page.data
    assert b'hx-trigger="revealed"' in page.data
    assert b"Show the diff of third &amp; &lt;last&gt;" in page.data
    panel = client.get(url, headers=HTMX)
    assert panel.status_code == 200 and not is_page(panel)
    assert fragment_root(panel).startswith(b'<section class="scenario-change"')
    assert b"A line every scenario gets." in panel.data and "chat:" in " ".join(labels(panel))
    whole = client.get(url)
    assert is_page(whole) and b"snapshot #1 \xe2\x86\x92 now" in whole.data
    assert client.get("/agents/Simon/changes/scenario?name=nope").status_code == 404

