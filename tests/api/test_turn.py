"""A turn's inputs without an app (`webapp.web.api_turn`): posted tool results and values
replace the mock data, the scenario supplies the rest, and what cannot fit is refused."""

from __future__ import annotations

import pytest

from webapp.pipeline import Agent, Scenario, Skill, Tool, Variable, Workspace, assemble
from webapp.views.messages import Models
from webapp.web.api_schema import AssembleRequest
from webapp.web.api_turn import TurnProblem, assemble_turn, turn_inputs

WORKSPACE = Workspace(
    agent=Agent(name="T"),
    skills=(Skill("main", "system:\nWeather: {{weather}}\nNote: {{note}}\n\nuser:\n{{message}}\n",
                  triggers=("dm",)),),
    tools=(Tool("forecast", result={"content": "mock rain"}),),
    variables=(Variable("weather", tool="forecast"),),
    scenarios=(Scenario("hello", message="hi from the scenario"),
               Scenario("other", message="other message", provider="anthropic")),
)


def turn(**fields) -> AssembleRequest:
    return AssembleRequest.model_validate(fields)


def test_nothing_posted_is_the_first_scenario_as_assemble_gives_it():
    answer = assemble_turn(WORKSPACE, turn(), Models())
    assert answer["document"] == assemble(WORKSPACE, "hello").document
    assert "mock rain" in answer["document"] and "hi from the scenario" in answer["document"]
    assert answer["request_body"]["model"] == Models().openai


def test_posted_results_and_values_replace_the_mock_data():
    answer = assemble_turn(WORKSPACE, turn(
        scenario="other", message="posted", tool_results={"forecast": {"content": "sun"}},
        variables={"note": "a posted value"}), Models())
    document = answer["document"]
    assert "sun" in document and "mock rain" not in document
    assert "a posted value" in document and "posted" in document
    assert answer["scenario"] == "other"
    assert answer["request_body"]["model"] == Models().anthropic  # the scenario's provider


def test_posted_history_and_provider_replace_the_scenarios():
    workspace, scenario = turn_inputs(WORKSPACE, turn(
        history=[{"role": "user", "content": "earlier"}], provider="anthropic"))
    assert scenario.name == "hello" and scenario.provider == "anthropic"
    assert [(h.role, h.content) for h in scenario.history] == [("user", "earlier")]
    assert workspace.tools == WORKSPACE.tools


@pytest.mark.parametrize(("fields", "field"), [
    ({"scenario": "missing"}, "scenario"), ({"variables": {"weather": "x"}}, "variables")])
def test_what_does_not_fit_the_snapshot_is_refused(fields, field):
    with pytest.raises(TurnProblem) as refused:
        turn_inputs(WORKSPACE, turn(**fields))
    assert refused.value.field == field
