"""The lint of a skill's SKILL.md in the editor's Problems tab, for the clients chosen in
the agent's settings, and the agent's catalogue for each of them."""

from __future__ import annotations

import re

import pytest

from tests.support.folders import repository, zipped
from tests.support.pages import HTMX, is_page, starts_with
from webapp import agentskills, store
from webapp.schema import db


@pytest.fixture
def docs(app) -> str:
    """The agent Docs, holding the test repository's skills, written for Codex and the spec."""
    with app.app_context():
        session = db.get_session()
        store.import_skills(session, "Docs", agentskills.read_zip(zipped(repository())))
        store.update_agent(session, "Docs", skill_clients=["agentskills", "codex"])
    return "Docs"


def test_the_problems_tab_says_which_clients_refuse_a_long_description(client, docs):
    html = client.get("/agents/Docs/skills/doc-coauthoring").data.decode()
    assert "SKILL.md for Agent Skills specification, Codex\n" in html
    assert re.search(r'<code class="code">description-too-long</code>.*?the description is '
                     r"1,068 characters \(SKILL.md line 3\): Agent Skills specification allows "
                     r"1,024 characters; Codex skips the skill", html, re.S)
    assert 'id="problem-count" aria-hidden="true">1</span>' in html
    clean = client.get("/agents/Docs/skills/pdf").data.decode()
    assert "Nothing these clients would refuse, cut or ignore." in clean


def test_the_problems_sentence_counts_the_skill_md_as_the_badge_does(client, docs):
    """The one problem is the SKILL.md's: the sentence says so, not "No problems"."""
    html = client.get("/agents/Docs/skills/doc-coauthoring").data.decode()
    assert 'id="problem-count" aria-hidden="true">1</span>' in html
    assert ('id="problem-summary">1 problem: 1 error, all in doc-coauthoring&#39;s SKILL.md '
            "for the agent&#39;s clients.</p>") in html


def test_the_draft_is_linted_as_it_is_typed(client, docs, csrf):
    response = client.post("/agents/Docs/skills/pdf/preview", data={
        "csrf_token": csrf, "version": "1", "d_tag": "pdf", "name": "pdf",
        "description": "x" * 1100, "layer": "1", "triggers": "", "enabled": "1",
        "content": "See missing.md.\n", "shown": "problems"}, headers={"HX-Request": "true"})
    html = response.data.decode()
    assert "description-too-long" in html and "the body mentions missing.md" in html


def test_the_settings_choose_the_clients(app, client, docs, csrf):
    page = client.get("/agents/Docs/settings").data.decode()
    assert 'name="skill_clients" value="codex" checked' in page
    assert 'name="skill_clients" value="gemini-cli" >' in page
    form = {"csrf_token": csrf, "name": "Docs", "title": "{name}", "message_mode": "grouped",
            "max_array_items": "8", "model": "gpt-4o", "context_window": "0",
            "skill_clients_shown": "1", "skill_clients": ["claude-code", "gemini-cli"]}
    assert client.post("/agents/Docs/settings", data=form).status_code == 303
    with app.app_context():
        assert store.get_agent(db.get_session(), "Docs").skill_clients == [
            "claude-code", "gemini-cli"]
    refused = client.post("/agents/Docs/settings", data={**form, "skill_clients": []})
    assert refused.status_code == 422 and "must name at least one client" in (
        refused.data.decode())


def test_a_client_the_store_does_not_know_is_refused(session):
    store.create_agent(session, "x")
    with pytest.raises(store.ValidationError) as caught:
        store.update_agent(session, "x", skill_clients=["cursor"])
    assert caught.value.problems == [
        ("skill_clients", "names no client 'cursor' (the clients: agentskills, claude-code, "
                          "codex, vscode-copilot, gemini-cli)")]


# -- the catalogue


def test_the_catalogue_shows_each_clients_listing_against_its_budget(app, client, docs):
    response = client.get("/agents/Docs/catalogue")
    assert response.status_code == 200 and is_page(response)
    html = response.data.decode()
    assert '<h2 id="client-codex">Codex</h2>' in html
    assert "Agent Skills specification publishes no budget for its listing." in html
    assert "of 10,240 characters" in html  # Codex: 2% of gpt-4o's 128,000 tokens
    assert "- pdf: Comprehensive PDF manipulation toolkit" in html
    assert starts_with(client.get("/agents/Docs/catalogue", headers=HTMX),
                       b'<section id="catalogue"')


def test_the_costliest_descriptions_are_one_table_with_a_column_per_client(client, docs):
    html = client.get("/agents/Docs/catalogue").data.decode()
    assert html.count("<caption>The costliest descriptions") == 1
    table = html[html.index('class="records-table catalogue-costliest"'):]
    table = table[:table.index("</table>")]
    assert re.findall(r'<th scope="col">([^<]*)</th>', table) == [
        "Skill", "Agent Skills specification", "Codex"]
    # Codex skips a description over 1,024 characters, as the lint says: not listed there.
    first = re.search(r'<tbody><tr><th scope="row"><a [^>]*>([^<]*)</a></th>'
                      r'<td>([\d,]+)</td><td><span class="muted">(not listed)', table)
    assert first and first.groups() == ("doc-coauthoring", "1,068", "not listed")


def test_an_overflowing_catalogue_is_a_problem(app, client, docs):
    html = client.get("/agents/Docs/catalogue", query_string={"window": "3000"}).data.decode()
    assert "Measured in a context window of 3,000 tokens" in html
    assert re.search(r'<code class="code">catalogue-overflow</code> <span class="message">Codex '
                     r"lists 2 skills in [\d,]+ characters, [\d,]+ over its budget of 240",
                     html)
    assert ("Not listed (the lint says why): doc-coauthoring "
            "(<code>description-too-long</code>)") in html
    assert client.get("/agents/Docs/catalogue", query_string={"window": "x"}).status_code == 422


def test_the_problems_tab_links_to_the_catalogue(client, docs):
    html = client.get("/agents/Docs/skills/pdf").data.decode()
    assert 'href="/agents/Docs/catalogue">the catalogue</a>' in html


def test_the_problems_tab_shows_the_catalogues_overflow_as_the_catalogue_page_does(
        app, client, docs, csrf):
    with app.app_context():
        store.update_agent(db.get_session(), "Docs", context_window=3000)
    catalogue = client.get("/agents/Docs/catalogue").data.decode()
    found = re.search(r'<code class="code">catalogue-overflow</code> <span class="message">'
                      r"([^<]*)</span>", catalogue)
    assert found and found.group(1).startswith("Codex lists 2 skills")
    editor = client.get("/agents/Docs/skills/pdf").data.decode()
    assert f'<span class="message">{found.group(1)}</span>' in editor
    # A draft that shortens the skill's description is measured as typed: within the budget.
    with app.app_context():
        pdf = store.get_skill(db.get_session(), "Docs", "pdf")
        form = {"csrf_token": csrf, "version": str(pdf.version), "d_tag": "pdf",
                "name": pdf.name, "description": "PDF.", "layer": "1",
                "content": pdf.content, "enabled": "1", "triggers": "", "shown": "problems"}
    draft = client.post("/agents/Docs/skills/pdf/preview", data=form, headers=HTMX).data
    assert b"SKILL.md for Agent Skills specification, Codex" in draft
    assert b"catalogue-overflow" not in draft
    form["description"] = pdf.description + " More words." * 5
    longer = client.post("/agents/Docs/skills/pdf/preview", data=form, headers=HTMX).data
    assert re.search(rb'<span class="message">Codex lists 2 skills in [\d,]+ characters, '
                     rb"[\d,]+ over its budget of 240", longer)
