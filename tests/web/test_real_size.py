"""At real size (200 skills of about 2 KB, a document of 21,000 lines): what each tab of
the editor's live preview and of the agent preview weighs, uncompressed. Bytes, not time:
the browser's time follows the HTML it parses (`docs/performance.md`)."""

from __future__ import annotations

import pytest

from benchmarks.workspaces import scale_workspace

from .conftest import HTMX

EDITOR = "/agents/Bench/skills/skill_100"
#: The issue's bound on a keystroke's answer; the tabs below are well under it.
KEYSTROKE_BYTES = 100_000
PLAIN = {**HTMX, "Accept-Encoding": "identity"}


def keystroke(client, csrf, shown: str, **fields: str):
    """A keystroke's preview of skill_100 with a line typed at its end, `shown` open."""
    content = scale_workspace(200).skills_by_tag["skill_100"].content + "\nTyped now."
    data = {"csrf_token": csrf, "version": "1", "d_tag": "skill_100", "name": "",
            "layer": "1", "triggers": "dm", "enabled": "1", "content": content,
            "shown": shown, **fields}
    response = client.post(f"{EDITOR}/preview", data=data, headers=PLAIN)
    assert response.status_code == 200
    return response


@pytest.mark.parametrize("shown, bound", [
    ("document:rendered", 20_000), ("document:source", 70_000), ("messages", 20_000),
    ("log", 12_000), ("problems", 10_000), ("budget", 100_000),
])
def test_the_agent_preview_sends_the_open_tab_alone(client, bench, shown, bound):
    fragment = client.get("/agents/Bench/preview", query_string={"shown": shown},
                          headers=PLAIN)
    html = fragment.data.decode()
    assert fragment.status_code == 200 and len(fragment.data) <= bound, len(fragment.data)
    # The meter is in the summary, on every tab; the chart comes with the Budget tab.
    assert "<meter" in html and "of 128,000 tokens" in html
    assert ('<svg class="budget-chart"' in html) == (shown == "budget")


def test_the_agent_preview_page_leaves_the_chart_to_its_tab(client, bench):
    page = client.get("/agents/Bench/preview", headers={"Accept-Encoding": "identity"})
    html = page.data.decode()
    assert len(page.data) <= 25_000, len(page.data)
    assert '<svg class="budget-chart"' not in html and "<meter" in html
    # Without JavaScript the placeholder is a link to the page with the chart.
    link = "/agents/Bench/preview?shown=budget"
    assert f'<a class="nojs-only" href="{link}">Show this panel</a>' in html
    chart = client.get(link).data.decode()
    assert '<svg class="budget-chart"' in chart and 'href="/agents/Bench/skills/skill_0' in chart
