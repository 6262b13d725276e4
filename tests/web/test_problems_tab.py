"""The Problems tab counts once: its badge, its heading and its list say the same number
(and the skill's own share of it is the skill list's badge); a message's `names` show as
code, escaped."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from tests.support.pages import editor_url, panel
from tests.support.workspaces import demo_cases
from webapp.render import code_spans


def tab_counts(html: str) -> tuple[int, int, int]:
    """(the badge's number, the heading's, the list's length) of the Problems tab."""
    badge = re.search(r'id="problem-count" aria-hidden="true">(\d+)<', html)
    problems = panel(html, "problems")
    heading = re.search(r'id="problem-summary">(No problems|(\d+) problems?:)', problems)
    assert heading, problems[:400]
    return (int(badge[1]) if badge else 0, int(heading[2] or 0),
            problems.count('<li class="problem '))


def test_a_context_with_another_skill_s_problem_counts_it_everywhere(client, relay_watch):
    """identity is previewed in relay-check's context, whose typo is relay-check's: the
    badge, the heading and the list count it; identity's own lines have none."""
    html = client.get(editor_url(relay_watch, "identity")).data.decode()
    assert tab_counts(html) == (1, 1, 1)
    problems = panel(html, "problems")
    assert "1 problem: 1 warning; " in problems
    assert "1 problem: 1 warning; in identity&#39;s own lines: none." in problems


@pytest.mark.parametrize("fixture, skill, scenario", demo_cases(),
                         ids=lambda v: v["d_tag"] if isinstance(v, dict) else str(v))
def test_badge_heading_and_list_agree(request, client, fixture, skill, scenario):
    agent = request.getfixturevalue(fixture)
    query = f"?scenario={quote(scenario)}" if scenario else ""
    badge, heading, listed = tab_counts(client.get(editor_url(agent, skill["d_tag"]) + query)
                                        .data.decode())
    assert badge == heading == listed


@pytest.mark.parametrize("agent", ["Simon", "Relay Watch"])
def test_the_agent_preview_counts_once_too(client, simon, relay_watch, agent):
    html = client.get(f"/agents/{agent}/preview").data.decode()
    badge, heading, listed = tab_counts(html)
    assert badge == heading == listed


def test_a_problem_message_shows_its_names_as_code(client, relay_watch):
    html = client.get(editor_url(relay_watch, "relay-check")).data.decode()
    problems = panel(html, "problems")
    assert "<code>{{admin_note}}</code> matches no skill" in problems
    assert "did you mean <code>admin_notes</code>, " in problems
    assert "`" not in re.sub(r"<[^>]*>", "", problems)


@pytest.mark.parametrize("text, html", [
    ("unknown `{{x}}`", "unknown <code>{{x}}</code>"),
    ("a `<b>` & `c`", "a <code>&lt;b&gt;</code> &amp; <code>c</code>"),
    ("one ` alone", "one ` alone"),
    ("`a` and ` b", "<code>a</code> and ` b"),
    ("<script>x</script>", "&lt;script&gt;x&lt;/script&gt;"),
])
def test_code_spans(text, html):
    assert str(code_spans(text)) == html
