"""References that multiply: each skill is expanded once per assembly, and the expansion
budget stops a document from growing past its inputs' size a few times over."""

from __future__ import annotations

from webapp.pipeline import Agent, Scenario, Skill, Workspace, assemble, expansion_budget


def chain(levels: int, fan_out: int = 10) -> Workspace:
    """`top` writes `{{l0}}` ten times, each `l<i>` writes `{{l<i+1>}}` ten times."""
    skills = [Skill("top", "\n".join(["{{l0}}"] * fan_out), triggers=("dm",))]
    for i in range(levels):
        nxt = f"{{{{l{i + 1}}}}}" if i + 1 < levels else "leaf text"
        skills.append(Skill(f"l{i}", "\n".join([nxt] * fan_out), layer=2))
    return Workspace(agent=Agent(name="A"), skills=tuple(skills), scenarios=(Scenario("s"),))


def test_an_exponential_chain_stops_at_the_budget_and_the_rest_assembles():
    workspace = chain(7)
    context = assemble(workspace)
    budget = [d for d in context.diagnostics if d.code == "reference-budget"]
    # Said once, at the reference that went over, naming the skill being assembled.
    assert len(budget) == 1 and budget[0].severity == "error"
    assert budget[0].message.startswith("`top` embeds more than the budget allows")
    given = sum(len(skill.content) for skill in workspace.skills)
    assert len(context.document) <= given + expansion_budget(given)
    assert context.document.startswith("system:\n# A\n\nleaf text")


def test_a_chain_within_the_budget_is_whole():
    context = assemble(chain(3))
    assert context.document.count("leaf text") == 10 ** 4
    assert not [d for d in context.diagnostics if d.severity == "error"]


def test_skills_that_all_embed_each_other_finish_with_cycle_errors():
    names = [f"s{i}" for i in range(30)]
    skills = [Skill(name, "\n".join(f"{{{{{other}}}}}" for other in names if other != name),
                    layer=1 if name == "s0" else 2, triggers=("dm",)) for name in names]
    context = assemble(Workspace(agent=Agent(name="A"), skills=tuple(skills),
                                 scenarios=(Scenario("s"),)))
    codes = {d.code for d in context.diagnostics}
    assert "reference-cycle" in codes
