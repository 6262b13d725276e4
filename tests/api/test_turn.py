"""A turn's inputs without an app (`webapp.web.api_turn`): a turn that names no scenario
has the request's inputs alone (a tool it posts nothing for is not called); a turn that
names one gets its inputs for what it does not post, listed; a name the snapshot does not
know is refused with the closest it does."""

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
               Scenario("other", message="other message", provider="anthropic",
                        event={"kind": 4})),
)


def turn(**fields) -> AssembleRequest:
    """A turn that asks for every form of the context."""
    return AssembleRequest.model_validate(
        {"include": ["messages", "document", "request_body", "log_entry"], **fields})


def test_a_turn_without_a_scenario_carries_no_mock_data():
    answer = assemble_turn(WORKSPACE, turn(message="posted"), Models())
    assert "mock rain" not in answer["document"] and "scenario" not in answer["document"]
    assert "posted" in answer["document"]
    assert answer["scenario"] is None and answer["from_scenario"] == []
    not_called = [d for d in answer["diagnostics"] if d["code"] == "tool-not-called"]
    assert len(not_called) == 1 and "`forecast`" in not_called[0]["message"]
    assert answer["request_body"]["model"] == Models().openai


def test_a_named_scenario_supplies_what_is_not_posted_and_says_so():
    answer = assemble_turn(WORKSPACE, turn(scenario="hello"), Models())
    assert answer["document"] == assemble(WORKSPACE, "hello").document
    assert "mock rain" in answer["document"] and "hi from the scenario" in answer["document"]
    assert answer["from_scenario"] == ["trigger", "message", "tool_results.forecast"]
    assert not any(d["code"] == "tool-not-called" for d in answer["diagnostics"])


def test_posted_results_and_values_replace_the_mock_data():
    answer = assemble_turn(WORKSPACE, turn(
        scenario="other", message="posted", tool_results={"forecast": {"content": "sun"}},
        variables={"note": "a posted value"}), Models())
    document = answer["document"]
    assert "sun" in document and "mock rain" not in document
    assert "a posted value" in document and "posted" in document
    assert answer["scenario"] == "other"
    assert answer["request_body"]["model"] == Models().anthropic  # the scenario's provider
    assert answer["from_scenario"] == ["trigger", "event", "provider"]


def test_posted_history_and_provider_replace_the_scenarios():
    workspace, scenario, supplied = turn_inputs(WORKSPACE, turn(
        scenario="hello", history=[{"role": "user", "content": "earlier"}],
        provider="anthropic"))
    assert scenario.name == "hello" and scenario.provider == "anthropic"
    assert [(h.role, h.content) for h in scenario.history] == [("user", "earlier")]
    assert workspace.tools == WORKSPACE.tools
    assert "history" not in supplied and "provider" not in supplied


@pytest.mark.parametrize(("fields", "field", "said"), [
    ({"scenario": "helo"}, "scenario", "no scenario 'helo'; did you mean 'hello'?"),
    ({"tool_results": {"forcast": 1}}, "tool_results",
     "no tool 'forcast'; did you mean 'forecast'?"),
    ({"variables": {"nte": "x"}}, "variables",
     "no name 'nte' for a value to fill (a `{{name}}` its skills write); did you mean 'note'?"),
    ({"variables": {"zzz": "x"}}, "variables", "no name 'zzz' for a value to fill"),
    ({"tool_results": {"message_current": "x"}}, "tool_results", "no tool 'message_current'"),
    ({"variables": {"message": "x"}}, "variables", "no name 'message'"),
    ({"variables": {"weather": "x"}}, "variables", "'weather' is a binding of the tool"),
])
def test_what_does_not_fit_the_snapshot_is_refused(fields, field, said):
    with pytest.raises(TurnProblem) as refused:
        turn_inputs(WORKSPACE, turn(**fields))
    assert refused.value.field == field and said in str(refused.value)
