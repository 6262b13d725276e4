"""Context test runs kept by content (`store.test_runs`): the pages that show every
scenario's tests run them once a workspace, not on every view."""

from __future__ import annotations

import dataclasses

from tests.support.workspaces import SIMON
from webapp.bounds.lru import LRU
from webapp.pipeline import load_bundle
from webapp.store import context_tests, test_runs


def with_pattern(pattern: str):
    """Simon with a `regex` test on its first scenario."""
    workspace = load_bundle(SIMON)
    first = dataclasses.replace(workspace.scenarios[0], expect=({"regex": pattern},))
    return dataclasses.replace(workspace, scenarios=(first, *workspace.scenarios[1:]))


def counting(monkeypatch) -> list[object]:
    """Count the runs `run_kept` makes, with nothing kept before."""
    runs: list[object] = []
    real = context_tests.run
    monkeypatch.setattr(context_tests, "run", lambda *a, **k: runs.append(a) or real(*a, **k))
    monkeypatch.setattr(test_runs, "_runs", LRU("context test runs", 32_000_000))
    return runs


def test_a_run_is_kept_by_the_workspace_s_content_and_scenario(monkeypatch):
    runs = counting(monkeypatch)
    workspace = with_pattern("Simon")
    first = test_runs.run_kept(workspace)
    assert test_runs.run_kept(load_bundle(SIMON)) and len(runs) == 2  # other content
    assert test_runs.run_kept(with_pattern("Simon")) == first and len(runs) == 2
    assert first == context_tests.run(workspace)
    test_runs.run_kept(workspace, workspace.scenarios[0].name)
    assert len(runs) == 4  # another scenario asked for (and the direct run above)


def test_a_run_whose_search_was_cut_is_not_kept(monkeypatch):
    runs = counting(monkeypatch)
    monkeypatch.setattr(context_tests, "bounded_search", lambda pattern, text: None)
    workspace = with_pattern("Simon")
    cut = test_runs.run_kept(workspace)
    assert cut.failures and len(runs) == 1
    test_runs.run_kept(workspace)
    assert len(runs) == 2
