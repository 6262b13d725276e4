"""The pipeline's memos are bounded by bytes and keep the agent being edited while other
agents are previewed: asserted on the memos' counters, never on timings."""

from __future__ import annotations

import dataclasses
import gc
import importlib
import random
from collections import Counter

import pytest

from webapp.pipeline import Agent, Scenario, Skill, Tool, Workspace, assemble
from webapp.pipeline.blocks import parse_skill
from webapp.pipeline.memo import Memo
from webapp.pipeline.result import Origin

assemble_module = importlib.import_module("webapp.pipeline.assemble")
run_plain_skill = assemble_module.run_plain_skill


def one(args, value) -> int:
    return 1


def test_entries_are_evicted_least_recently_used():
    memo = Memo(lambda n: n * n, max_bytes=4, weight=one, protected=0)
    for n in range(1, 5):
        memo(n)
    memo(1)  # used again: now the most recently used
    memo(5)
    assert [(n,) in memo for n in range(1, 6)] == [True, False, True, True, True]
    memo(6)
    assert (3,) not in memo and (1,) in memo
    assert memo.cache_info().evictions == 2


def test_an_entry_used_twice_outlives_entries_seen_once():
    memo = Memo(lambda n: n, max_bytes=10, weight=one, protected=0.5)
    memo("edited")
    memo("edited")  # protected from now on
    for n in range(100):  # a long scan of entries used once
        memo(n)
    assert ("edited",) in memo
    info = memo.cache_info()
    assert (info.hits, info.misses, info.entries, info.protected) == (1, 101, 10, 1)


def test_the_protected_segment_is_bounded_too():
    memo = Memo(lambda n: n, max_bytes=10, weight=one, protected=0.5)
    for n in range(8):
        memo(n)
        memo(n)
    info = memo.cache_info()
    assert info.protected == 5 and info.entries == 8  # three moved back to probation
    assert all((n,) in memo for n in range(8))


def test_the_byte_bound_holds():
    rng = random.Random(12)
    weights = {n: rng.randrange(1, 60) for n in range(200)}
    memo = Memo(lambda n: n, max_bytes=400, weight=lambda args, value: weights[value])
    for _ in range(5000):
        memo(rng.randrange(200) if rng.random() < 0.7 else rng.randrange(20))
        info = memo.cache_info()
        assert info.currsize <= 400
    kept = [n for n in weights if (n,) in memo]
    assert sum(weights[n] for n in kept) == memo.cache_info().currsize
    assert memo.cache_info().evictions > 0


def test_a_result_heavier_than_a_quarter_of_the_budget_is_not_kept():
    memo = Memo(lambda n: n, max_bytes=100, weight=lambda args, value: value)
    assert memo(26) == 26 and (26,) not in memo
    assert memo(25) == 25 and (25,) in memo


def agent_workspace(name: str, skills: int) -> Workspace:
    """An agent of `skills` plain skills of about 1 KB, each using two of ten tools."""
    tools = tuple(Tool(f"t{i}", result={"success": True, "content": f"value {i}\nline 2"})
                  for i in range(10))
    texts = [f"# {name} skill {s}\n\n" + "\n".join(
        f"- rule {k} of {name}: {{{{t{(s + k) % 10}}}}} then prose" for k in range(20))
        for s in range(skills)]
    return Workspace(agent=Agent(name=name),
                     skills=tuple(Skill(f"s{s}", text, triggers=("dm",))
                                  for s, text in enumerate(texts)),
                     tools=tools, scenarios=(Scenario("sc", message="hi"),))


def keystroke(workspace: Workspace, i: int):
    """One keystroke in skill s0 of the agent being edited: a draft preview."""
    draft = workspace.skills[0].content + f"\ntyped {i}"
    return assemble(workspace, overrides={"s0": draft})


@pytest.fixture
def small_memos(monkeypatch: pytest.MonkeyPatch):
    """The memos emptied, and a function giving them a budget of `n` times the bytes of
    one agent of 40 skills (so a few agents fit, not all)."""
    def size(agents: float, protected: float = 0.8) -> None:
        for memo in (run_plain_skill, parse_skill):
            memo.cache_clear()
        assemble(agent_workspace("probe", 40))
        for memo in (run_plain_skill, parse_skill):
            monkeypatch.setattr(memo, "max_bytes", int(memo.cache_info().currsize * agents))
            monkeypatch.setattr(memo, "protected_share", protected)
            memo.cache_clear()

    yield size
    for memo in (run_plain_skill, parse_skill):
        memo.cache_clear()


def test_previews_of_other_agents_do_not_evict_the_agent_being_edited(small_memos):
    small_memos(agents=3)
    edited = agent_workspace("edited", 40)
    others = [agent_workspace(f"other{i}", 40) for i in range(12)]
    keystroke(edited, 0)
    keystroke(edited, 1)
    for i, other in enumerate(others, 2):
        assemble(other)  # another author's preview, on the same server
        before = run_plain_skill.cache_info()
        keystroke(edited, i)
        after = run_plain_skill.cache_info()
        # Only the skill typed into is run again; its 39 neighbours are found.
        assert (after.misses - before.misses, after.hits - before.hits) == (1, 39)
    for memo in (run_plain_skill, parse_skill):
        info = memo.cache_info()
        assert info.currsize <= info.maxsize
        assert info.evictions > 0  # the other agents did not all fit


def test_with_plain_lru_order_the_same_previews_would_evict_it(small_memos):
    """The control: the test above can fail. With no protected segment the memo is a
    plain least-recently-used one, and two previews of other agents push the edited
    agent's skills out."""
    small_memos(agents=3, protected=0)
    edited = agent_workspace("edited", 40)
    keystroke(edited, 0)
    keystroke(edited, 1)
    for other in (agent_workspace("a", 40), agent_workspace("b", 40),
                  agent_workspace("c", 40)):
        assemble(other)
    before = run_plain_skill.cache_info()
    keystroke(edited, 2)
    assert run_plain_skill.cache_info().misses - before.misses > 1


def test_a_trace_looked_at_is_not_kept_in_the_memo(small_memos):
    small_memos(agents=100)
    workspace = agent_workspace("edited", 5)
    first = assemble(workspace)
    kept = run_plain_skill.cache_info().currsize
    stages = [trace.stages for trace in first.trace]
    again = assemble(workspace)
    assert run_plain_skill.cache_info().currsize == kept
    assert [trace.stages for trace in again.trace] == stages
    assert stages[0][3].text.startswith("system:\n# edited skill 0\n")
    entries = [*run_plain_skill._protected.values(), *run_plain_skill._probation.values()]
    assert len(entries) == 5
    assert all(entry.value.trace._stages is None for entry in entries)  # never made


def test_a_skill_s_line_origins_are_one_run_whatever_its_length():
    parsed = parse_skill("long", "\n".join(f"line {n}" for n in range(5000)))
    assert parsed.origins.parts == (("long", 1, 5000),)
    assert [origin.line for _, origin in parsed.lines][:3] == [1, 2, 3]
    assert parsed.origins[4999] == Origin("skill", "long", 5000)


def test_the_memo_keeps_no_origin_object_of_an_author_s_line():
    """What the memos keep of a skill for the garbage collector to follow does not grow
    with its lines: no `Origin` per line, which the collector would follow for ever."""
    def kept_by_memos(name: str, prose_lines: int) -> Counter[str]:
        workspace = agent_workspace(name, 50)
        prose = "\n".join(["Plain prose the author wrote."] * prose_lines)
        workspace = dataclasses.replace(workspace, skills=tuple(
            dataclasses.replace(skill, content=f"{skill.content}\n{prose}")
            for skill in workspace.skills))
        gc.collect()
        before = Counter(type(o).__name__ for o in gc.get_objects())
        context = assemble(workspace)
        assert len(context.provenance) > 50 * prose_lines  # made when read, gone with it
        del context
        gc.collect()
        return Counter(type(o).__name__ for o in gc.get_objects()) - before

    kept_by_memos("first", 1)  # what a first assembly makes once (compiled patterns)
    short, long = kept_by_memos("short", 10), kept_by_memos("long", 1000)
    assert long["Origin"] == short["Origin"] == 0
    assert long == short


def test_a_workspace_too_big_for_the_memo_still_assembles_the_same(small_memos):
    small_memos(agents=0.25)
    workspace = agent_workspace("big", 40)
    first = assemble(workspace)
    assert run_plain_skill.cache_info().evictions > 0
    second = assemble(dataclasses.replace(workspace))
    assert (second.document, second.provenance, second.diagnostics) == (
        first.document, first.provenance, first.diagnostics)
