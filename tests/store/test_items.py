"""Agents, tools, variable bindings, scenarios and the context log."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from webapp import store
from webapp.pipeline import Diagnostic, HistoryEntry, ToolResult


def test_agents(session):
    agent = store.create_agent(session, "a", title="{name}!", message_mode="sequence")
    assert store.get_agent(session, agent.id) is agent
    assert store.get_agent(session, "a").history_labels == {"assistant": "You", "user": "Admin"}
    store.create_agent(session, "b")
    with pytest.raises(store.AlreadyExists):
        store.create_agent(session, "a")
    with pytest.raises(store.ValidationError) as caught:
        store.create_agent(session, "c", message_mode="shuffled", max_array_items=-1)
    assert set(caught.value.errors) == {"message_mode", "max_array_items"}
    with pytest.raises(store.AlreadyExists):
        store.update_agent(session, "a", name="b")
    store.update_agent(session, "a", name="renamed", max_array_items=3)
    assert [a.name for a in store.list_agents(session)] == ["b", "renamed"]
    assert store.load_workspace(session, "renamed").agent.max_array_items == 3
    with pytest.raises(store.NotFound):
        store.get_agent(session, "a")
    with pytest.raises(TypeError):
        store.update_agent(session, "b", colour="red")


def test_tools_crud(session, agent):
    store.create_tool(session, agent, "lookup", description="Looks up.",
                      result={"success": True, "content": "x"},
                      results_by_args=[ToolResult(args={"q": 1}, result={"success": True,
                                                                         "content": "one"})])
    store.create_tool(session, agent, "second")
    with pytest.raises(store.AlreadyExists):
        store.create_tool(session, agent, "lookup")
    with pytest.raises(store.ValidationError, match="built-in"):
        store.create_tool(session, agent, "dm_history")
    with pytest.raises(store.ValidationError):
        store.create_tool(session, agent, "x", results_by_args=[{"result": 1}])

    store.update_tool(session, agent, "lookup", description="Changed.", name="find")
    with pytest.raises(store.AlreadyExists):
        store.update_tool(session, agent, "find", name="second")
    tool = store.load_workspace(session, agent).tools_by_name["find"]
    assert tool.description == "Changed."
    assert tool.call({"q": 1}) == {"success": True, "content": "one"}
    assert [t.name for t in store.list_tools(session, agent)] == ["find", "second"]

    store.delete_tool(session, agent, "find")
    with pytest.raises(store.NotFound):
        store.get_tool(session, agent, "find")
    with pytest.raises(store.NotFound):
        store.delete_tool(session, agent, "find")


def test_variables_crud(session, agent):
    store.create_variable(session, agent, "npub", tool="identity", path="npub",
                          format="inline_code")
    with pytest.raises(store.ValidationError) as caught:
        store.create_variable(session, agent, "bad name", tool="")
    assert set(caught.value.errors) == {"name", "tool"}
    store.update_variable(session, agent, "npub", limit=3, result_field=None)
    variable = store.load_workspace(session, agent).variables_by_name["npub"]
    assert (variable.tool, variable.path, variable.limit, variable.result_field) == (
        "identity", "npub", 3, "content")
    store.delete_variable(session, agent, "npub")
    assert store.list_variables(session, agent) == []


def test_scenarios_crud(session, agent):
    store.create_scenario(session, agent, "first", message="hi",
                          history=[HistoryEntry("user", "earlier", 1),
                                   {"role": "assistant", "content": "ok", "created_at": None}])
    store.create_scenario(session, agent, "cron", trigger="cron", event={"kind": 1})
    with pytest.raises(store.ValidationError):
        store.create_scenario(session, agent, "bad", history=[{"role": "robot", "content": ""}])
    store.update_scenario(session, agent, "first", provider="anthropic")
    scenarios = store.load_workspace(session, agent).scenarios
    assert [s.name for s in scenarios] == ["first", "cron"]
    assert scenarios[0].history == (HistoryEntry("user", "earlier", 1),
                                    HistoryEntry("assistant", "ok", None))
    assert scenarios[0].provider == "anthropic" and scenarios[1].event == {"kind": 1}
    store.delete_scenario(session, agent, "first")
    assert store.get_scenario(session, agent, "cron").trigger == "cron"


def _context(document="system:\nhello\n", diagnostics=()):
    diagnostics = list(diagnostics)

    def counts():
        result = {"error": 0, "warning": 0, "info": 0}
        for d in diagnostics:
            result[d.severity] += 1
        return result

    return SimpleNamespace(document=document, messages=[{"role": "system", "content": "hello"}],
                           diagnostics=diagnostics, log_entry="## log\n", scenario="first",
                           trigger="dm", counts=counts)


def test_context_log(session, agent):
    warning = Diagnostic("warning", "unknown-variable", "no such thing", skill="chat", line=2)
    entry = store.log_context(session, agent, _context(diagnostics=[warning]))
    assert (entry.scenario, entry.trigger, entry.warning_count, entry.error_count) == (
        "first", "dm", 1, 0)
    assert entry.diagnostics == [warning.to_dict()]
    assert entry.summary == "## log\n"
    second = store.log_context(session, agent, _context("two"), scenario="other", trigger="cron")

    assert [e.id for e in store.list_log(session, agent)] == [second.id, entry.id]
    assert [e.id for e in store.list_log(session, agent, scenario="other")] == [second.id]
    assert store.get_log_entry(session, agent, entry.id).messages == [
        {"role": "system", "content": "hello"}]
    store.create_agent(session, "stranger")
    with pytest.raises(store.NotFound):
        store.get_log_entry(session, "stranger", entry.id)

    store.delete_log_entry(session, agent, entry.id)
    assert [e.id for e in store.list_log(session, agent)] == [second.id]
    for _ in range(4):
        store.log_context(session, agent, _context(), keep=3)
    assert len(store.list_log(session, agent)) == 3
    assert store.clear_log(session, agent) == 3
    assert store.list_log(session, agent) == []


def test_log_a_real_assembly(session, agent):
    from webapp.pipeline import assemble

    store.create_scenario(session, agent, "hello", message="Hi there")
    context = assemble(store.load_workspace(session, agent), "hello")
    entry = store.log_context(session, agent, context)
    assert entry.document == context.document
    assert entry.scenario == "hello" and entry.trigger == "dm"
    assert (entry.error_count, entry.warning_count, entry.info_count) == (
        context.counts()["error"], context.counts()["warning"], context.counts()["info"])
