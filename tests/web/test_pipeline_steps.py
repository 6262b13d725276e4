"""The pipeline explained: the list of steps and a page per step, each as a page and as a
fragment; the addresses a presenter steps through; the errors a viewer can hit; the
Pipeline tabs of the agent preview and the editor, and the defects the old per-skill list
had."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.pages import HTMX, executable_markup, fragment_root, is_page
from tests.support.workspaces import RELAY_WATCH, SIMON
from webapp import store
from webapp.pipeline import STEP_WORDS, load_bundle
from webapp.schema import db
from webapp.views.pipeline_steps import SKILLS_SHOWN

STEPS = list(STEP_WORDS)
CASES = [(agent, bundle, scenario.name) for agent, bundle in (("Simon", SIMON),
                                                              ("Relay Watch", RELAY_WATCH))
         for scenario in load_bundle(bundle).scenarios]


@pytest.fixture
def demos(simon, relay_watch) -> None:
    """Both demo agents."""


def link(html: str, rel: str) -> str | None:
    found = re.search(rf'<a class="button[^"]*" rel="{rel}" href="([^"]+)"', html)
    return unescape(found[1]) if found else None


@pytest.mark.parametrize("agent, bundle, scenario", CASES, ids=[c[2] for c in CASES])
def test_every_step_is_a_page_and_a_fragment_linked_to_the_next(client, demos, agent, bundle,
                                                                 scenario):
    url = f"/agents/{agent}/pipeline/{STEPS[0]}?scenario={scenario}"
    seen = []
    while url:
        page = client.get(url)
        assert page.status_code == 200 and is_page(page), url
        html = page.data.decode()
        assert executable_markup(html) == []
        key = re.search(r'data-step="(\w+)"', html)[1]
        seen.append(key)
        name, does, rule = STEP_WORDS[key]
        assert f"{len(seen)}.</span> {name}</h1>" in html
        assert f'href="/help/context#{rule}"' in html
        assert f"Step {len(seen)} of {len(STEPS)}" in html
        # The address names the scenario, whatever the viewer picked last.
        assert parse_qs(urlsplit(url).query)["scenario"] == [scenario]
        fragment = client.get(url, headers=HTMX)
        assert not is_page(fragment) and "HX-Request" in fragment.headers["Vary"]
        assert fragment_root(fragment).startswith(b'<section id="pipeline-step"')
        previous = link(html, "prev")
        assert (previous is None) == (len(seen) == 1)
        url = link(html, "next")
    assert seen == STEPS


def test_the_list_of_steps_is_a_page_and_a_fragment(client, demos):
    page = client.get("/agents/Simon/pipeline?scenario=admin asks about mentions")
    html = page.data.decode()
    assert page.status_code == 200 and is_page(page)
    assert html.count('<li class="pipeline-step-summary') == len(STEPS)
    for key in STEPS:
        assert f'href="/agents/Simon/pipeline/{key}?scenario=admin+asks+about+mentions"' in html
    fragment = client.get("/agents/Simon/pipeline", headers=HTMX)
    assert fragment_root(fragment).startswith(b'<section id="pipeline" class="pipeline-list"')


def test_a_step_that_does_not_exist_is_a_404_that_names_the_steps(client, demos):
    for headers in ({}, HTMX):
        response = client.get("/agents/Simon/pipeline/bump", headers=headers)
        assert response.status_code == 404
        assert "The pipeline has no step “bump”; its steps are trigger, order" \
            in response.data.decode()
    assert client.get("/agents/Nobody/pipeline/trigger").status_code == 404


def test_a_scenario_that_does_not_exist_is_a_422_showing_the_default(client, demos):
    for url in ("/agents/Simon/pipeline/trigger?scenario=nope",
                "/agents/Simon/pipeline?scenario=nope"):
        response = client.get(url)
        html = response.data.decode()
        assert response.status_code == 422 and "Not valid (the default is shown instead)" in html
        assert "admin asks about mentions" in html


def test_the_presentation_layout_is_kept_by_its_links(client, demos):
    html = client.get("/agents/Simon/pipeline/roles?scenario=admin asks about mentions"
                      "&view=present").data.decode()
    assert 'class="pipeline-step present"' in html
    assert 'class="page pipeline-page presenting"' in html
    assert "view=present" in link(html, "next") and "view=present" in link(html, "prev")
    assert "Leave the presentation" in html
    plain = client.get("/agents/Simon/pipeline/roles?scenario=admin asks about mentions")
    assert 'class="pipeline-step"' in plain.data.decode() and "view=present" not in link(
        plain.data.decode(), "next")


def test_a_skill_stage_shows_each_skill_foldable_with_what_it_did(client, demos):
    html = client.get("/agents/Simon/pipeline/variables?scenario=admin asks about mentions"
                      ).data.decode()
    # Two skills, both open; each value with the tool it calls and its formatter.
    assert html.count('<details class="step-skill') == 2 and html.count(" open>") >= 2
    assert "<td>nostr_agent_profile</td><td>agent_profile</td>" in html
    assert "<td>agent_identity</td><td>inline_code</td>" in html
    # Each diff line says where it came from.
    assert '<td class="origin origin-skill">identity:1</td>' in html
    # Asked for one skill: its part is open and the links keep it.
    html = client.get("/agents/Simon/pipeline/roles?scenario=admin asks about mentions"
                      "&skill=chat").data.decode()
    assert "skill=chat" in link(html, "next")


def test_roles_split_says_what_it_did_and_references_lose_nothing(client, demos):
    """The old per-skill list said "No change in this stage" for roles split, and showed
    22 lines removed at "references expanded" when a skill has a template."""
    roles = client.get("/agents/Simon/pipeline/roles?scenario=admin asks about mentions"
                       ).data.decode()
    assert "No change in this stage" not in roles
    assert "cut chat into 2 blocks: system (5 lines) and user (1 line)" in unescape(
        re.sub(r"</?code>", "`", roles))
    references = client.get("/agents/Relay Watch/pipeline/references"
                            "?scenario=admin asks about latency").data.decode()
    # `{{identity}}` became its three lines; the template part is not counted as removed.
    assert '<span class="added">+3</span> <span class="removed">−1</span>' in references
    assert "set aside here, not lost" in references


def test_the_trigger_step_lists_skills_in_the_trash(client, app, demos):
    with app.app_context():
        store.delete_skill(db.get_session(), "Relay Watch", "debug-dump")
    html = client.get("/agents/Relay Watch/pipeline/trigger?scenario=nightly relay check"
                      ).data.decode()
    assert "<td class=\"num\">trash</td>" in html
    assert "not selected: in the trash, its trigger would select it" not in html  # disabled
    assert "not selected: in the trash" in html


def test_a_stage_of_many_skills_makes_a_few_diffs(client, many):
    html = client.get("/agents/Many/pipeline/variables?scenario=dm").data.decode()
    assert html.count('<details class="step-skill') == 60
    assert len(re.findall(r'aria-label="skill_\d+: Variables resolved"', html)) == SKILLS_SHOWN
    assert len(re.findall(r"Show skill_\d+'s part</a>", unescape(html))) == 60 - SKILLS_SHOWN
    asked = client.get("/agents/Many/pipeline/variables?scenario=dm&skill=skill_59"
                       ).data.decode()
    assert 'id="skill-skill_59" open>' in asked


def test_the_rules_linked_are_headings_of_the_context_guide(client, demos):
    guide = client.get("/help/context").data.decode()
    for _, _, rule in STEP_WORDS.values():
        assert f'id="{rule}"' in guide, rule


def test_the_agent_preview_has_a_pipeline_tab(client, demos):
    page = client.get("/agents/Relay Watch/preview?scenario=admin asks about latency"
                      "&shown=document:rendered", headers=HTMX)
    html = page.data.decode()
    assert 'id="tab-pipeline"' in html and 'id="panel-pipeline"' in html
    # Made when the tab is shown: until then a placeholder.
    assert "Skills selected by the trigger" not in html
    assert 'href="/agents/Relay%20Watch/preview?shown=pipeline:unified&amp;' in html
    shown = client.get("/agents/Relay Watch/preview?scenario=admin asks about latency"
                       "&shown=pipeline:unified", headers=HTMX).data.decode()
    assert shown.count('<li class="pipeline-step-summary') == len(STEPS)
    assert ('href="/agents/Relay%20Watch/pipeline/trigger?scenario=admin+asks+about+latency"'
            in shown)
    assert "debug-dump" in shown and "not selected: disabled" in shown


def test_the_editors_pipeline_tab_shows_every_step_and_the_skill_in_full(client, demos,
                                                                         skill_form):
    data = skill_form("system:\n# Chat\n\nuser:\n{{message}}\n", shown="pipeline")
    html = client.post("/agents/Simon/skills/chat/preview", data=data,
                       headers=HTMX).data.decode()
    pipeline = html.split('id="panel-pipeline"')[1]
    for key in STEPS:
        assert f'id="stage-{key}"' in pipeline
    assert "No change in this stage" not in pipeline
    # The draft's stages, in words: two blocks cut by the author's two markers.
    assert "cut chat into 2 blocks: system (2 lines) and user (1 line)" in unescape(
        re.sub(r"</?code>", "`", pipeline))
    step = "/agents/Simon/pipeline/trigger?scenario=admin+asks+about+mentions&amp;skill=chat"
    assert f'href="{step}"' in pipeline


def test_a_newcomer_s_words_are_explained_where_first_shown(client, demos):
    """"in … lines", "layer 2", "adoption order" and "grouped mode" each get a plain
    explanation, a `<dfn>`, at the first step that shows them; the mode over the steps
    links to its own."""
    html = client.get("/agents/Simon/pipeline").data.decode()
    found = re.findall(r'<li class="pipeline-step-summary[^"]*" id="summary-(\w+)"|'
                       r'<dfn id="term-(\w+)">', html)
    where, step = {}, None
    for key, term in found:
        step = key or step
        if term:
            where[term] = step
    assert where == {"lines": "trigger", "layer": "trigger", "adoption": "order",
                     "mode": "messages"}
    assert re.search(r'href="/agents/Simon/pipeline/messages\?[^"#]*#term-mode">grouped mode</a>',
                     html)
    page = client.get("/agents/Simon/pipeline/order").data.decode()
    assert '<dfn id="term-adoption">adoption order</dfn>' in page
    assert "The order of the agent&#39;s skill list." in page


def test_no_two_steps_share_most_of_a_name():
    """"Roles split" and "Roles split into messages" read as one step twice."""
    names = [name.lower() for name, _, _ in STEP_WORDS.values()]
    assert all(not b.startswith(a) for a in names for b in names if a != b), names
    assert STEP_WORDS["roles"][0] == "Blocks cut at role markers"
    assert STEP_WORDS["messages"][0] == "Blocks laid out as messages"


def test_the_messages_step_says_where_the_skills_lines_went(client, demos):
    """Step 7 gives out 33 lines and step 9 takes 32 in: the blank line trimmed is said."""
    html = unescape(client.get("/agents/Simon/pipeline/messages").data.decode())
    assert "In: 32 lines: step 7's 33, less 1 blank line trimmed around the parts." in html
