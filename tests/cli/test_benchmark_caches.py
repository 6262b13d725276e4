"""The caches' benchmark rows (`benchmarks/caches.py`, not part of a quick run) run, and
its naive baseline does what its docstring says."""

from __future__ import annotations

from benchmarks.caches import cache_rows, naive_assemble, renamed
from webapp.pipeline import Agent, Skill, Workspace


def test_the_naive_baseline_substitutes_bumps_and_joins():
    workspace = Workspace(agent=Agent(name="A"), skills=(
        Skill("a", "# T\n{{x}} and {{ y }}\n#tag"), Skill("b", "## U")))
    assert naive_assemble(workspace, {"x": "1", "y": "2"}) == (
        "system:\n# A\n\n---\n\n## T\n1 and 2\n#tag\n\n---\n\n### U\n")


def test_a_renamed_workspace_shares_no_name_nor_text():
    workspace = Workspace(agent=Agent(name="A"), skills=(Skill("a", "text"),))
    fresh = renamed(workspace, "c1_")
    assert (fresh.skills[0].d_tag, fresh.skills[0].content) == ("c1_a", "text\nc1_")


def test_the_rows_run(monkeypatch):
    import benchmarks.caches as caches

    monkeypatch.setattr(caches, "scale_workspace",
                        lambda n, real=caches.scale_workspace: real(max(1, n // 50)))
    figures = [figure for figure, _, _ in cache_rows(quick=True)]
    assert "cold assemble, 250 skills / naive substitute-and-bump" in figures
    assert len(figures) == 8
