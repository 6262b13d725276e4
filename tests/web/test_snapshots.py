"""Snapshots you can read: a snapshot's page, its scenarios' panels and folds, two sides
compared (and their panels), the first publish's whole context, the links to them, and
who may see them; each as page and fragment, each error a user can hit."""

from __future__ import annotations

import re

import pytest

from tests.support.pages import HTMX, TOKEN, executable_markup, fragment_root, is_page, sign_in
from tests.support.xss import CORPUS
from webapp import store
from webapp.views import snapshots

SIMON = "/agents/Simon"
SCENARIO = "admin asks about mentions"


def edit(in_app, agent: str, d_tag: str, content: str) -> None:
    def save(session):
        row = store.get_skill(session, agent, d_tag)
        store.save_skill(session, agent, d_tag, expected_version=row.version, content=content)

    in_app(save)


@pytest.fixture
def two(simon, in_app) -> str:
    """Simon published as #1 ("first review"), chat then given a new line and a tool
    changed, published as #2 ("sign messages", label staging), then the draft given one
    more line."""
    in_app(lambda s: store.publish(s, "Simon", "first review", expected_latest=0))
    chat = in_app(lambda s: store.get_skill(s, "Simon", "chat").content)
    edit(in_app, "Simon", "chat", chat + "\nAlways sign with your npub.\n")
    in_app(lambda s: store.publish(s, "Simon", "sign messages", expected_latest=1,
                                   label="staging"))
    edit(in_app, "Simon", "chat", chat + "\nAlways sign with your npub.\nDraft only.\n")
    return "Simon"


def text(response) -> str:
    """The response's text without tags, white space collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.data.decode()))


def origins(response) -> list[str]:
    """The origin labels of the Source table's lines."""
    return [re.sub(r"<[^>]+>", "", label) for label in
            re.findall(r'<td class="origin[^"]*">(.*?)</td>', response.data.decode(), re.S)]


def provenance(response) -> list[str]:
    """The provenance labels of a labelled diff's changed lines."""
    rows = re.findall(rb'<tr class="line-(?:add|del)">.*?<td class="provenance">(.*?)</td>',
                      response.data, re.S)
    return [re.sub(rb"<[^>]+>", b"", label).decode() for label in rows]


# -- a snapshot's page


def test_a_snapshot_page_says_who_why_its_labels_skills_and_contexts(client, two):
    page = client.get(f"{SIMON}/snapshots/1")
    assert page.status_code == 200 and is_page(page)
    shown = text(page)
    assert "Snapshot #1" in shown and "first review" in shown and "by local" in shown
    assert '<span class="label-name">production</span>' in page.data.decode()
    assert "Context tests" in shown and "passed" in shown
    assert "The draft differs from this snapshot." in shown and "latest snapshot is #2" in shown
    # Its skills, linking to the version each had.
    for d_tag in ("identity", "personality", "chat"):
        assert f'href="/agents/Simon/skills/{d_tag}/history/1">{d_tag}</a>' in page.data.decode()
    # Every scenario's compiled context, with where each line came from.
    assert f'aria-label="Scenario {SCENARIO}"' in page.data.decode()
    assert '<article class="message-card role-system">' in page.data.decode()
    assert {"role", "title", "identity:1", "personality:3", "chat:2", "tool:message"} <= set(
        origins(page))
    assert "Always sign with your npub." not in shown, "#1 is before the change"
    assert "No context test fails in this scenario." in shown
    # Where to go next: the neighbours and the draft.
    assert 'href="/agents/Simon/snapshots/compare?a=1&amp;b=draft"' in page.data.decode()
    assert 'href="/agents/Simon/snapshots/1/bundle"' in page.data.decode()
    fragment = client.get(f"{SIMON}/snapshots/1", headers=HTMX)
    assert fragment.status_code == 200 and not is_page(fragment)
    assert fragment_root(fragment).startswith(b'<section id="snapshot"')
    assert "HX-Request" in fragment.headers["Vary"]


def test_the_second_snapshot_shows_its_change_and_compares_with_the_first(client, two):
    page = client.get(f"{SIMON}/snapshots/2")
    assert "Always sign with your npub." in text(page) and "Draft only." not in text(page)
    assert "staging" in text(page) and "This is the latest snapshot." in text(page)
    assert 'href="/agents/Simon/snapshots/compare?a=1&amp;b=2"' in page.data.decode()


def test_a_snapshot_published_with_failing_tests_shows_the_override(client, relay_watch,
                                                                      in_app):
    in_app(lambda s: store.publish(s, relay_watch, "", expected_latest=0,
                                   override="the demo keeps a known problem"))
    page = client.get("/agents/Relay Watch/snapshots/1")
    shown = text(page)
    assert "1 failed" in shown and "published anyway by local" in shown
    assert "the demo keeps a known problem" in shown
    assert "Context tests failing in this scenario:" in shown and "admin_note" in shown


@pytest.mark.parametrize("url", [
    f"{SIMON}/snapshots/3", f"{SIMON}/snapshots/0", f"{SIMON}/snapshots/99999999999",
    "/agents/Nobody/snapshots/1", f"{SIMON}/snapshots/1/scenario?name=nope",
    f"{SIMON}/snapshots/3/scenario?name={SCENARIO}", f"{SIMON}/snapshots/1/scenario",
    f"{SIMON}/snapshots/3/lines?view=source&lines=1-10",
    f"{SIMON}/snapshots/1/lines?view=source&lines=1-10&name=nope",
])
def test_an_unknown_snapshot_or_scenario_is_a_404(client, two, url):
    for headers in ({}, HTMX):
        response = client.get(url, headers=headers)
        assert response.status_code == 404, url


def test_a_scenario_panel_as_page_and_fragment(client, two):
    url = f"{SIMON}/snapshots/2/scenario?name={SCENARIO}"
    fragment = client.get(url, headers=HTMX)
    assert fragment.status_code == 200 and not is_page(fragment)
    assert fragment_root(fragment).startswith(b'<section class="scenario-context preview-wrap"')
    assert "Always sign with your npub." in text(fragment)
    page = client.get(url)
    assert is_page(page) and f"{SCENARIO}: snapshot #2" in text(page)


def test_scenarios_past_the_first_few_load_when_shown(client, simon, in_app):
    for name in ("second", "third & <last>"):
        in_app(lambda s, name=name: store.create_scenario(s, "Simon", name, trigger="dm",
                                                          message=f"Hello from {name}"))
    in_app(lambda s: store.publish(s, "Simon", "", expected_latest=0))
    page = client.get(f"{SIMON}/snapshots/1")
    assert page.data.count(b'<section class="scenario-context preview-wrap"') == (
        snapshots.INLINE_SCENARIOS)
    url = "/agents/Simon/snapshots/1/scenario?name=third+%26+%3Clast%3E"
    assert f'hx-get="{url.replace("&", "&amp;")}"'.encode() in page.data
    assert b"Show the context of third &amp; &lt;last&gt;" in page.data
    panel = client.get(url, headers=HTMX)
    assert panel.status_code == 200 and b"Hello from third &amp; &lt;last&gt;" in panel.data


def test_a_long_document_folds_and_its_folds_open(client, many, in_app):
    in_app(lambda s: store.publish(s, many, "", expected_latest=0))
    page = client.get("/agents/Many/snapshots/1")
    folds = re.findall(r'href="(/agents/Many/snapshots/1/lines\?[^"]+view=source[^"]*)"',
                       page.data.decode())
    assert folds, "the Source view of a long document is folded"
    url = folds[0].replace("&amp;", "&")
    fragment = client.get(url, headers=HTMX)
    assert fragment.status_code == 200 and not is_page(fragment)
    assert fragment_root(fragment).startswith(b"<tr")
    whole = client.get(url)
    assert is_page(whole) and "of dm in snapshot #1" in text(whole)
    for bad in ("view=nope&lines=1-10", "view=source&lines=10-1", "view=source"):
        assert client.get(f"/agents/Many/snapshots/1/lines?{bad}").status_code == 422


# -- two sides compared


def test_two_snapshots_compare_with_provenance_and_skill_diffs(client, two):
    page = client.get(f"{SIMON}/snapshots/compare?a=1&b=2")
    assert page.status_code == 200 and is_page(page)
    shown = text(page)
    assert "Compare #1 → #2" in shown and "first review" in shown and "sign messages" in shown
    # The skill changed, with its text's diff.
    assert re.search(r'aria-label="Skill chat".*?<td class="sign">\+</td><td class="code">Always',
                     page.data.decode(), re.S)
    # Every scenario's document and messages, each changed line labelled.
    assert "chat:" in " ".join(provenance(page))
    assert '<th scope="col">#1</th><th scope="col">#2</th>' in page.data.decode()
    # The form picks the two sides it shows.
    assert re.search(r'<select name="a"[^>]*>.*?<option value="1" selected>', page.data.decode(),
                     re.S)
    assert re.search(r'<select name="b"[^>]*>.*?<option value="2" selected>', page.data.decode(),
                     re.S)
    fragment = client.get(f"{SIMON}/snapshots/compare?a=1&b=2", headers=HTMX)
    assert fragment.status_code == 200 and not is_page(fragment)
    assert fragment_root(fragment).startswith(b'<section id="snapshot-compare"')


def test_a_snapshot_compares_with_the_draft_and_by_label(client, two):
    page = client.get(f"{SIMON}/snapshots/compare?a=staging&b=draft")
    shown = text(page)
    assert "Compare #2 → the draft" in shown and "Draft only." in shown
    assert "Always sign with your npub." not in " ".join(
        re.findall(r'<tr class="line-add">(.*?)</tr>', page.data.decode(), re.S))
    assert text(client.get(f"{SIMON}/snapshots/compare")) == shown, "latest → draft by default"
    assert "Compare #1 → #2" in text(client.get(f"{SIMON}/snapshots/compare?b=2"))


def test_the_same_side_twice_differs_in_nothing(client, two):
    for query in ("a=2&b=2", "a=2&b=latest", "a=1&b=production"):
        shown = text(client.get(f"{SIMON}/snapshots/compare?{query}"))
        assert "The two sides hold the same workspace." in shown, query
        assert "No skill differs." in shown and "No scenario's compiled context changes." in shown


def test_comparing_when_nothing_was_published_or_with_an_unknown_side_is_a_404(client, simon):
    assert client.get(f"{SIMON}/snapshots/compare").status_code == 404
    assert client.get(f"{SIMON}/snapshots/compare?a=draft&b=draft").status_code == 200


@pytest.mark.parametrize("query", ["a=1&b=7", "a=nope&b=1", "a=1&b=latest2"])
def test_an_unknown_side_is_a_404(client, two, query):
    assert client.get(f"{SIMON}/snapshots/compare?{query}").status_code == 404


def test_compare_panels_as_page_and_fragment(client, two):
    url = f"{SIMON}/snapshots/compare/scenario?a=1&b=draft&name={SCENARIO}"
    fragment = client.get(url, headers=HTMX)
    assert fragment.status_code == 200 and not is_page(fragment)
    assert fragment_root(fragment).startswith(b'<section class="scenario-change"')
    assert "Draft only." in text(fragment) and "chat:" in " ".join(provenance(fragment))
    assert is_page(client.get(url)) and "Compare #1 → the draft" in text(client.get(url))
    skill = f"{SIMON}/snapshots/compare/skill?a=1&b=draft&d_tag=chat"
    fragment = client.get(skill, headers=HTMX)
    assert fragment.status_code == 200 and not is_page(fragment)
    assert fragment_root(fragment).startswith(b'<section class="skill-change"')
    assert "Draft only." in text(fragment) and is_page(client.get(skill))
    for missing in (f"{SIMON}/snapshots/compare/scenario?a=1&b=2&name=nope",
                    f"{SIMON}/snapshots/compare/skill?a=1&b=2&d_tag=identity",
                    f"{SIMON}/snapshots/compare/skill?a=1&b=2&d_tag=ghost",
                    f"{SIMON}/snapshots/compare/skill?a=1&b=9&d_tag=chat"):
        assert client.get(missing).status_code == 404, missing


def test_skills_past_the_first_few_load_when_shown(client, many, in_app):
    in_app(lambda s: store.publish(s, many, "", expected_latest=0))
    for row in in_app(lambda s: store.list_skills(s, many))[:snapshots.INLINE_SKILLS + 2]:
        edit(in_app, many, row.d_tag, row.content + "\nOne more line.\n")
    page = client.get("/agents/Many/snapshots/compare?a=1&b=draft")
    assert page.data.count(b'hx-get="/agents/Many/snapshots/compare/skill?') == 2
    url = re.findall(r'hx-get="(/agents/Many/snapshots/compare/skill\?[^"]+)"',
                     page.data.decode())[0].replace("&amp;", "&")
    panel = client.get(url, headers=HTMX)
    assert panel.status_code == 200 and b"One more line." in panel.data


# -- the first publish, and the links to snapshots


def test_the_first_publish_shows_the_whole_compiled_context(client, simon):
    page = client.get(f"{SIMON}/changes")
    shown = text(page)
    assert "Compiled context to publish" in shown
    assert f'aria-label="Scenario {SCENARIO}"' in page.data.decode()
    assert {"role", "title", "identity:1", "personality:3", "chat:2", "tool:message"} <= set(
        origins(page))
    assert '<article class="message-card role-system">' in page.data.decode()
    assert 'href="/agents/Simon/skills/chat#L2"' in page.data.decode(), "lines link to the editor"
    panel = client.get(f"{SIMON}/changes/scenario?name={SCENARIO}", headers=HTMX)
    assert panel.status_code == 200 and not is_page(panel)
    assert fragment_root(panel).startswith(b'<section class="scenario-context preview-wrap"')
    whole = client.get(f"{SIMON}/changes/scenario?name={SCENARIO}")
    assert is_page(whole) and "the context snapshot #1 would hold" in text(whole)
    assert client.get(f"{SIMON}/changes/scenario?name=nope").status_code == 404


def test_the_first_publish_folds_a_long_document_and_opens_the_folds(client, many):
    page = client.get("/agents/Many/changes")
    folds = re.findall(r'href="(/agents/Many/preview/lines\?[^"]+)"', page.data.decode())
    assert folds
    opened = client.get(folds[0].replace("&amp;", "&"), headers=HTMX)
    assert opened.status_code == 200 and not is_page(opened)


def test_the_changes_page_links_each_snapshot_and_offers_a_comparison(client, two, in_app):
    in_app(lambda s: store.move_label(s, "Simon", "staging", 1))
    page = client.get(f"{SIMON}/changes").data.decode()
    assert '<a href="/agents/Simon/snapshots/2">#2</a>' in page
    assert '<a href="/agents/Simon/snapshots/1">#1</a>' in page
    assert 'action="/agents/Simon/snapshots/compare"' in page
    assert re.search(r"staging</span> to #1 \(was #2\).*?"
                     r'href="/agents/Simon/snapshots/1">snapshot #1</a>', page, re.S)
    assert 'aria-current="page">Changes' in client.get(f"{SIMON}/snapshots/1").data.decode()


def test_activity_rows_link_to_what_they_changed(client, two, in_app):
    in_app(lambda s: store.create_tool(s, "Simon", "clock"))
    in_app(lambda s: store.create_tool(s, "Simon", "gone"))
    in_app(lambda s: store.delete_tool(s, "Simon", "gone"))
    html = client.get(f"{SIMON}/activity").data.decode()
    assert '<a href="/agents/Simon/snapshots/2">#2</a>' in html
    assert '<a href="/agents/Simon/snapshots/2">staging</a>' in html
    assert '<a href="/agents/Simon/skills/chat/history">chat</a>' in html
    assert '<a href="/agents/Simon/tools/clock">clock</a>' in html
    assert "<td>gone</td>" in html, "a removed tool has no page"
    assert '<a href="/agents/Simon">Simon</a>' in html, "the import: the agent's skills"


# -- who may see


def test_viewers_read_snapshots_and_anonymous_visitors_sign_in_first(app, two, team):
    anonymous = app.test_client()
    for url in (f"{SIMON}/snapshots/1", f"{SIMON}/snapshots/compare?a=1&b=2"):
        response = anonymous.get(url)
        assert response.status_code == 303 and "/login" in response.headers["Location"]
        assert b"Always sign" not in response.data
    viewer = sign_in(app.test_client(), "viewer", TOKEN)
    assert viewer.get(f"{SIMON}/snapshots/1").status_code == 200
    assert viewer.get(f"{SIMON}/snapshots/compare?a=1&b=2").status_code == 200


def test_an_activity_row_links_a_webhook_for_admins_only(app, simon, team, in_app):
    in_app(lambda s: store.webhooks.add_webhook(s, "Simon", "https://hooks.example.com/in"))
    hook = '<a href="/agents/Simon/webhooks/1">#1</a>'
    viewer = sign_in(app.test_client(), "viewer", TOKEN)
    admin = sign_in(app.test_client(), "admin", TOKEN)
    assert hook not in viewer.get(f"{SIMON}/activity").data.decode()
    assert hook in admin.get(f"{SIMON}/activity").data.decode()


def test_hostile_text_in_a_snapshot_never_becomes_markup(client, mallory, in_app):
    in_app(lambda s: store.publish(s, mallory, CORPUS, expected_latest=0, override=CORPUS))
    edit(in_app, mallory, "evil", CORPUS + "\nchanged\n")
    in_app(lambda s: store.create_tool(s, mallory, "clock"))
    urls = ["/agents/Mallory/snapshots/1", "/agents/Mallory/snapshots/compare?a=1&b=draft",
            "/agents/Mallory/changes", "/agents/Mallory/activity",
            "/agents/Mallory/snapshots/compare/skill?a=1&b=draft&d_tag=evil"]
    for url in urls:
        for headers in ({}, HTMX):
            response = client.get(url, headers=headers)
            assert response.status_code == 200, url
            assert executable_markup(response.data.decode()) == [], url


def test_a_comparison_at_real_size_stays_bounded(client, bench, in_app):
    """200 skills of 2 KB and 50 tools, 30 skills changed on most lines, six scenarios:
    the page holds the first skills' and scenarios' diffs, and the rest are panels."""
    def change(session):
        for index in range(5):
            store.create_scenario(session, bench, f"extra {index}", trigger="dm")
        store.publish(session, bench, "", expected_latest=0, override="real size")
        for row in store.list_skills(session, bench)[:30]:
            store.save_skill(session, bench, row.d_tag, expected_version=row.version,
                             content=row.content.replace("e", "E"))

    in_app(change)
    plain = {"Accept-Encoding": "identity"}
    page = client.get("/agents/Bench/snapshots/compare?a=1&b=draft", headers=plain)
    assert page.status_code == 200 and len(page.data) <= 650_000, len(page.data)
    html = page.data.decode()
    assert html.count('<section class="skill-change" aria-label="Skill skill_') == 30
    assert html.count('hx-get="/agents/Bench/snapshots/compare/skill?') == (
        30 - snapshots.INLINE_SKILLS)
    assert html.count('hx-get="/agents/Bench/snapshots/compare/scenario?') == (
        6 - snapshots.INLINE_SCENARIOS)
    snapshot = client.get("/agents/Bench/snapshots/1", headers=plain)
    assert len(snapshot.data) <= 250_000, len(snapshot.data)
    assert snapshot.data.count(b'hx-get="/agents/Bench/snapshots/1/scenario?') == (
        6 - snapshots.INLINE_SCENARIOS)
