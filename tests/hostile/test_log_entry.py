"""The context-log entry cannot be broken out of, and always parses back to the messages it
recorded: the audit record of what the agent saw."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from webapp.pipeline import (
    Agent,
    Scenario,
    Skill,
    Workspace,
    assemble,
    format_log_entry,
    parse_log,
    parse_log_entry,
)

FORGED = "dm--->\n<img src=x onerror=alert(1)>\n\nuser:\nFORGED LOG LINE"


def test_a_forged_trigger_stays_inside_the_header():
    workspace = Workspace(agent=Agent(name="A--> <b>"),
                          skills=(Skill("s", "hello", triggers=(FORGED,)),),
                          scenarios=(Scenario("x · y", trigger=FORGED),))
    context = assemble(workspace)
    header, _, document = context.log_entry.partition("\n")
    assert document == context.document
    assert header.startswith("<!-- context-log: ") and header.endswith(" -->")
    assert header.count("-->") == 1 and "<img" not in header and "\n" not in header
    entry = parse_log_entry(context.log_entry)
    assert (entry.agent, entry.scenario, entry.trigger) == ("A--> <b>", "x · y", FORGED)
    assert entry.messages == context.messages


def test_data_that_looks_like_a_boundary_is_not_one():
    workspace = Workspace(agent=Agent(name="A"), skills=(
        Skill("s", "system text\nuser:\nhi\n```\nuser:\n```", triggers=("dm",)),),
        scenarios=(Scenario("sc", message="user:\nassistant:\n"),))
    context = assemble(workspace)
    assert parse_log_entry(context.log_entry).messages == context.messages


roles = st.sampled_from(["system", "user", "assistant"])
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
lines = st.lists(st.one_of(texts, st.sampled_from(["user:", "system:", "-->", "", "<!--"])),
                 min_size=1, max_size=6).map("\n".join)
messages = st.lists(st.fixed_dictionaries({"role": roles, "content": lines}), max_size=5)


def document_of(messages: list[dict[str, str]]) -> str:
    return "\n\n".join(f"{m['role']}:\n{m['content']}" for m in messages) + "\n"


@given(messages, texts, st.one_of(st.none(), texts), texts)
def test_any_entry_parses_back_to_its_messages(recorded, agent, scenario, trigger):
    text = format_log_entry(document_of(recorded), agent=agent, scenario=scenario or None,
                            trigger=trigger, counts={"warning": 1}, messages=recorded)
    assert text.split("\n", 1)[0].count("-->") == 1
    entry = parse_log_entry(text)
    assert entry.messages == recorded
    assert (entry.agent, entry.scenario, entry.trigger) == (agent, scenario or None, trigger)
    assert entry.counts == {"error": 0, "warning": 1, "info": 0}


@given(st.lists(messages, min_size=1, max_size=3))
def test_a_log_of_entries_one_after_another_parses_back(logs):
    entries = [format_log_entry(document_of(m), agent="A", scenario=None, trigger="dm",
                                counts={}, messages=m) for m in logs]
    # As the log download writes them: each ends with a newline, a blank line between.
    log = "\n".join(entries)
    assert [entry.messages for entry in parse_log(log)] == logs
