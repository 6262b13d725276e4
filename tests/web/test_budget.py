"""The context window as a budget: the agent's model and window in Settings, the meter in
every preview, `over-budget` past (and near) the window, and what fills it, as a chart."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.support.pages import HTMX
from webapp import store
from webapp.pipeline import MODEL_WINDOWS, Agent, Scenario, Skill, Tool, Workspace, assemble
from webapp.schema import db
from webapp.tokens import TokenCount
from webapp.tokens.window import NEAR, Budget, breakdown, budget_of, budget_problem


def set_window(app, agent: str, window: int, model: str = "gpt-4o") -> None:
    with app.app_context():
        store.update_agent(db.get_session(), agent, context_window=window, model=model)


# -- the rule


@pytest.mark.parametrize("tokens, window, state, severity", [
    (10, 1000, "ok", None), (899, 1000, "ok", None), (900, 1000, "near", "warning"),
    (1000, 1000, "near", "warning"), (1001, 1000, "over", "error"),
])
def test_the_verdict_follows_the_share_of_the_window(tokens, window, state, severity):
    budget = Budget(TokenCount(tokens, True), window, "gpt-4o")
    assert budget.state == state
    problem = budget_problem(budget)
    assert (problem.severity if problem else None) == severity
    if severity is not None:
        assert problem.code == "over-budget" and f"{window:,}-token" in problem.message
    assert NEAR == 0.9


def test_the_window_is_the_agent_s_else_its_model_s():
    assert Agent(name="a").window == MODEL_WINDOWS["gpt-4o"] == 128_000
    assert Agent(name="a", model="claude-sonnet-4-5").window == 200_000
    assert Agent(name="a", model="my-own-model").window == 128_000
    assert Agent(name="a", model="gpt-4o", context_window=8000).window == 8000


def test_the_breakdown_counts_each_skill_tool_and_variable():
    workspace = Workspace(
        agent=Agent(name="A"),
        skills=(Skill("big", "system:\n" + "word " * 300 + "\n{{lookup}}\n", triggers=("dm",)),
                Skill("small", "Small.\n", triggers=("dm",))),
        tools=(Tool("lookup", result={"success": True, "content": "tool text " * 50}),),
        scenarios=(Scenario("sc"),))
    parts = breakdown(assemble(workspace))
    names = [(p.kind, p.name) for p in parts]
    assert names[0] == ("skill", "big") and ("tool", "lookup") in names
    assert ("skill", "small") in names and ("structure", "title, roles and separators") in names
    assert [p.tokens for p in parts] == sorted((p.tokens for p in parts), reverse=True)
    assert next(p for p in parts if p.name == "big").skill == "big"


# -- the pages


def test_settings_hold_the_model_and_the_window(app, client, simon, csrf):
    page = client.get("/agents/Simon/settings").data.decode()
    assert 'name="model" value="gpt-4o"' in page and 'name="context_window"' in page
    assert '<option value="claude-sonnet-4-5">' in page
    data = {"csrf_token": csrf, "name": "Simon", "title": "{name}", "message_mode": "grouped",
            "max_array_items": "8", "label_user": "Admin", "label_assistant": "You",
            "model": "claude-haiku-4-5", "context_window": "50000"}
    assert client.post("/agents/Simon/settings", data=data).status_code == 303
    with app.app_context():
        agent = store.get_agent(db.get_session(), "Simon")
    assert (agent.model, agent.context_window) == ("claude-haiku-4-5", 50000)
    data["context_window"] = "-5"
    refused = client.post("/agents/Simon/settings", data=data)
    assert refused.status_code == 422 and "must be at least 0" in refused.data.decode()
    # The bundle carries them.
    bundle = client.get("/agents/Simon/bundle").get_json()
    assert (bundle["agent"]["model"], bundle["agent"]["context_window"]) == (
        "claude-haiku-4-5", 50000)


def test_the_editor_shows_the_meter(client, simon):
    html = client.get("/agents/Simon/skills/chat").data.decode()
    meter = re.search(r'<meter min="0" max="128000" value="(\d+)"', html)
    assert meter and int(meter.group(1)) > 0
    assert "of 128,000 tokens (" in html and "budget-ok" in html


def test_past_the_window_is_an_error_of_the_preview(app, client, simon):
    set_window(app, "Simon", 50)
    html = client.get("/agents/Simon/skills/chat/preview", headers=HTMX).data.decode()
    assert "budget-over" in html and "over-budget" in html
    assert "-token context window of gpt-4o (over it)" in html
    assert 'class="badge error"' in html  # the Problems tab counts it


def test_near_the_window_is_a_warning(app, client, simon):
    with app.app_context():
        workspace = store.load_workspace(db.get_session(), "Simon")
    tokens = budget_of(assemble(workspace).document, workspace.agent).tokens.n
    set_window(app, "Simon", int(tokens / 0.95))
    html = client.get("/agents/Simon/preview").data.decode()
    assert "budget-near" in html and "(near it)" in html


def test_the_agent_preview_charts_what_fills_the_window(client, simon):
    page = client.get("/agents/Simon/preview")
    html = page.data.decode()
    assert ">Budget</button>" in html and 'id="panel-budget"' in html
    chart = html[html.index('<svg class="budget-chart"'):html.index("</svg>")]
    assert 'href="/agents/Simon/skills/chat"' in chart and ">tool message<" in chart
    values = [int(v.replace(",", "")) for v in re.findall(r'class="value"[^>]*>([\d,]+)<', chart)]
    assert values == sorted(values, reverse=True) and len(values) >= 3
    assert "<script" not in chart and "style=" not in chart


def test_the_cli_check_reports_the_budget(tmp_path):
    bundle = tmp_path / "tiny.json"
    bundle.write_text('{"format": "skill-workspace/1", "agent": {"name": "A", '
                      '"context_window": 5}, "skills": [{"d_tag": "s", "triggers": ["dm"], '
                      '"content": "many many many many many words here"}], '
                      '"scenarios": [{"name": "x"}]}', encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "webapp.cli", "check", "--bundle", str(bundle)],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1 and "over-budget" in result.stdout
