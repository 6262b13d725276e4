"""The preview follows the skill being edited, and the skill list counts each skill's own
problems.

Every skill of both demo agents, under every scenario: a draft change reaches the Diff.
Then the notes (a scenario or trigger that does not use the skill, a layer-2 skill shown
through its host, a skill nothing selects previewed on its own), the scenario remembered
per agent, and the badges agreeing with the Problems tab.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest

from tests.support.pages import HTMX, editor_url, panel
from tests.support.workspaces import RELAY_WATCH, SIMON, demo_cases
from webapp import store
from webapp.schema import db
from webapp.web.forms import PICKED_AGENTS, PICKED_KEY

NIGHTLY, LATENCY = "nightly relay check", "admin asks about latency"
TYPED = "A line the author just typed."


def form_of(csrf: str, skill: dict, **fields) -> dict:
    """The fields the editor form posts for `skill` as saved, with `fields` changed (an
    unticked Enabled box sends nothing)."""
    data = {"csrf_token": csrf, "version": 1, "d_tag": skill["d_tag"],
            "name": skill.get("name", ""), "layer": str(skill.get("layer", 1)),
            "triggers": "\n".join(skill.get("triggers", [])), "content": skill["content"]}
    if skill.get("enabled", True):
        data["enabled"] = "1"
    data.update(fields)
    return {key: value for key, value in data.items() if value is not None}


def typed_into(content: str) -> str:
    """`content` with a line typed at the end of its body (before a `---template---` part)."""
    body, marker, template = content.partition("\n---template---\n")
    return f"{body}\n\n{TYPED}{marker}{template}"


def skill_of(path, d_tag: str) -> dict:
    bundle = json.loads(path.read_text(encoding="utf-8"))
    return next(skill for skill in bundle["skills"] if skill["d_tag"] == d_tag)


def preview_of(client, csrf, agent: str, skill: dict, **fields) -> str:
    response = client.post(editor_url(agent, skill["d_tag"], "/preview"),
                           data=form_of(csrf, skill, **fields), headers=HTMX)
    assert response.status_code == 200
    return response.data.decode()


def note(html: str) -> str | None:
    found = re.search(r'id="preview-note" role="note">(.*?)</p>', html, re.S)
    return found and found[1].replace("&#39;", "'")


# -- a draft change reaches the preview, whatever the picker names


@pytest.mark.parametrize("fixture, skill, scenario", demo_cases(),
                         ids=lambda v: v["d_tag"] if isinstance(v, dict) else str(v))
def test_a_draft_change_shows_in_the_diff(request, client, csrf, fixture, skill, scenario):
    agent = request.getfixturevalue(fixture)
    assert skill["content"].strip(), "a skill with no text has nothing to diff"
    html = preview_of(client, csrf, agent, skill, scenario=scenario,
                      content=typed_into(skill["content"]))
    diff = panel(html, "diff")
    assert 'title="The draft changes the document"' in html
    assert TYPED in diff and "No change: the draft" not in diff


# -- the notes


def test_a_scenario_that_does_not_use_the_skill_is_followed_and_said(client, relay_watch, csrf):
    skill = skill_of(RELAY_WATCH, "dm-reply")
    said = ("Scenario “nightly relay check” does not use dm-reply: showing “admin asks "
            "about latency”, whose trigger dm does.")
    for scenario in (None, NIGHTLY):  # the first by default, or picked: the same
        html = preview_of(client, csrf, relay_watch, skill, scenario=scenario)
        assert note(html) == said
        assert "Trigger <strong>dm</strong>" in html
    assert note(preview_of(client, csrf, relay_watch, skill, scenario=LATENCY)) is None
    # The picker keeps the author's choice, so the next skill opens with it.
    page = client.get(editor_url(relay_watch, "dm-reply") + f"?scenario={quote(NIGHTLY)}")
    assert note(page.data.decode()) == said and picked(page.data.decode()) == NIGHTLY


def test_a_trigger_override_that_does_not_use_the_skill_is_followed(client, relay_watch, csrf):
    html = preview_of(client, csrf, relay_watch, skill_of(RELAY_WATCH, "relay-check"),
                      scenario=NIGHTLY, trigger="dm")
    assert note(html) == ("Trigger dm does not use relay-check: showing “nightly relay "
                          "check”, whose trigger cron does.")
    assert "Trigger <strong>cron</strong>" in html


@pytest.mark.parametrize("fixture, path, scenario, host, heading", [
    ("simon", SIMON, None, "personality", "# Personality"),
    ("relay_watch", RELAY_WATCH, NIGHTLY, "relay-check", "# Scheduled relay check"),
    ("relay_watch", RELAY_WATCH, LATENCY, "dm-reply", "# Conversation with your admin"),
])
def test_a_layer_2_skill_shows_its_hosts_stages(request, client, csrf, fixture, path, scenario,
                                                 host, heading):
    agent = request.getfixturevalue(fixture)
    html = preview_of(client, csrf, agent, skill_of(path, "identity"), scenario=scenario)
    pipeline = panel(html, "pipeline")
    assert f'Pipeline <span class="muted">{host}</span>' in pipeline
    assert re.search(rf"<strong>identity</strong> is shown through\s+<strong>{host}</strong>",
                     pipeline)
    assert heading in pipeline and '<ol class="stages">' in pipeline
    assert "does not use" not in pipeline
    assert note(html) is None


def test_a_disabled_skill_is_previewed_on_its_own(client, relay_watch, csrf):
    html = client.get(editor_url(relay_watch, "debug-dump"), headers=HTMX).data.decode()
    assert note(html) == ("debug-dump is disabled: previewed on its own, as the only skill "
                          "of trigger dm.")
    assert 'class="summary note alone"' in html
    document = panel(html, "document")
    assert "Debug" in document and "Conversation with your admin" not in document
    assert 'Pipeline <span class="muted">debug-dump</span>' in html


@pytest.mark.parametrize("fields, said", [
    ({"enabled": None}, "chat is disabled"),
    ({"triggers": ""}, "chat has no trigger and no skill a trigger selects embeds it"),
    ({"layer": "2"}, "chat is layer 2 and no skill a trigger selects embeds it"),
])
def test_a_draft_nothing_selects_is_previewed_on_its_own(client, simon, csrf, fields, said):
    html = preview_of(client, csrf, simon, skill_of(SIMON, "chat"),
                      content="system:\n# Chat\n\nOn its own.", **fields)
    assert note(html) == f"{said}: previewed on its own, as the only skill of trigger dm."
    document = panel(html, "document")
    assert "On its own." in document and "Personality" not in document


def test_the_log_stores_the_context_the_preview_shows(app, client, relay_watch, csrf):
    data = form_of(csrf, skill_of(RELAY_WATCH, "dm-reply"), scenario=NIGHTLY)
    assert client.post(editor_url(relay_watch, "dm-reply", "/log"), data=data).status_code == 303
    with app.app_context():
        (entry,) = store.list_log(db.get_session(), relay_watch)
        assert (entry.scenario, entry.trigger) == (LATENCY, "dm")


# -- the scenario picked is remembered per agent


def picked(html: str) -> str | None:
    """The scenario the picker shows as chosen."""
    picker = re.search(r'<select name="scenario">(.*?)</select>', html, re.S)
    found = picker and re.search(r'<option value="([^"]*)"\s+selected>', picker[1])
    return found and found[1]


def test_the_picked_scenario_is_kept_for_other_skills_of_the_agent(client, relay_watch, simon):
    client.get(editor_url(relay_watch, "dm-reply") + f"?scenario={quote(LATENCY)}")
    html = client.get(editor_url(relay_watch, "relay-check")).data.decode()
    assert picked(html) == LATENCY
    assert note(html).startswith("Scenario “admin asks about latency” does not use relay-check")
    # From the agent's page too; a query argument wins; another agent keeps its own.
    opened = client.get(f"/agents/{quote(relay_watch)}", follow_redirects=True)
    assert picked(opened.data.decode()) == LATENCY
    html = client.get(editor_url(relay_watch, "identity") + f"?scenario={quote(NIGHTLY)}")
    assert picked(html.data.decode()) == NIGHTLY
    assert picked(client.get(editor_url(relay_watch, "identity")).data.decode()) == NIGHTLY
    assert picked(client.get(editor_url(simon, "chat")).data.decode()) == (
        "admin asks about mentions")


def test_the_agent_preview_shares_the_pick(client, relay_watch):
    client.get(editor_url(relay_watch, "dm-reply") + f"?scenario={quote(LATENCY)}")
    assert picked(client.get(f"/agents/{quote(relay_watch)}/preview").data.decode()) == LATENCY
    client.get(f"/agents/{quote(relay_watch)}/preview?scenario={quote(NIGHTLY)}")
    assert picked(client.get(editor_url(relay_watch, "dm-reply")).data.decode()) == NIGHTLY


def test_a_remembered_scenario_that_is_gone_is_not_used(client, relay_watch):
    with client.session_transaction() as session:
        session[PICKED_KEY] = [[relay_watch, "deleted since"], "not a pair", [1, 2]]
    response = client.get(editor_url(relay_watch, "relay-check"))
    assert response.status_code == 200 and picked(response.data.decode()) == NIGHTLY


def test_the_session_remembers_a_few_agents(client, relay_watch):
    with client.session_transaction() as session:
        session[PICKED_KEY] = [[f"agent {i}", "x"] for i in range(PICKED_AGENTS)]
    client.get(editor_url(relay_watch, "dm-reply") + f"?scenario={quote(LATENCY)}")
    with client.session_transaction() as session:
        pairs = session[PICKED_KEY]
    assert len(pairs) == PICKED_AGENTS and pairs[-1] == [relay_watch, LATENCY]
    assert pairs[0] == ["agent 1", "x"]


# -- the skill list's badges: each skill's own problems, coloured by the worst


def badge(html: str, d_tag: str) -> tuple[str, int] | None:
    """The (severity class, number) of `d_tag`'s problem badge in the skill list."""
    skill_list = html[html.index('<nav id="skill-list"'):html.index("</nav>", html.index(
        '<nav id="skill-list"'))]
    item = next(chunk for chunk in skill_list.split("<li ")[1:]
                if f'<span class="skill-tag">{d_tag}</span>' in chunk)
    found = re.search(r'class="badge problems (\w+)" title="[^"]*">(\d+)<', item)
    return found and (found[1], int(found[2]))


def own_problems(html: str) -> tuple[str, int] | None:
    """The Problems tab's count of the edited skill's own problems, as (worst, total): its
    sentence names them worst first, and has no share to tell when the context has none."""
    summary = re.search(r'id="problem-summary">([^<]*)<', panel(html, "problems"))
    assert summary, "the Problems tab has its sentence"
    found = re.search(r"own lines: ([^.)]*)", summary[1])
    if found is None:
        assert "own lines" not in summary[1] and " in the context" not in summary[1]
        return None
    if found[1] == "none":
        return None
    worst = re.match(r"\d+ (error|warning|info)", found[1])
    assert worst, found[1]
    return worst[1], sum(int(n) for n in re.findall(r"\d+", found[1]))


def test_badges_count_own_problems_coloured_by_the_worst(client, relay_watch):
    html = client.get(editor_url(relay_watch, "identity")).data.decode()
    # relay-check's {{admin_note}} typo is a warning: yellow, not red.
    assert badge(html, "relay-check") == ("warning", 1)
    # dm-reply's skipped section is an info, counted too.
    assert badge(html, "dm-reply") == ("info", 1)
    # identity is in relay-check's context, whose warning is relay-check's, not identity's.
    assert badge(html, "identity") is None and own_problems(html) is None
    assert "unknown-variable" in panel(html, "problems")


def test_an_error_badge_is_red(client, simon, csrf, skill_form):
    data = skill_form("system:\n{{chat}}\n")  # a skill embedding itself: a reference cycle
    assert client.post(editor_url(simon, "chat"), data=data).status_code == 303
    html = client.get(editor_url(simon, "chat")).data.decode()
    assert badge(html, "chat") == ("error", 1) == own_problems(html)
    assert 'class="badge problems error"' in html


@pytest.mark.parametrize("fixture, skill, scenario", demo_cases(),
                         ids=lambda v: v["d_tag"] if isinstance(v, dict) else str(v))
def test_the_badge_agrees_with_the_problems_tab(request, client, fixture, skill, scenario):
    agent = request.getfixturevalue(fixture)
    query = f"?scenario={quote(scenario)}" if scenario else ""
    html = client.get(editor_url(agent, skill["d_tag"]) + query).data.decode()
    assert badge(html, skill["d_tag"]) == own_problems(html)
