"""Context test runs kept by the content they ran on, for the pages that show every
scenario's tests (the Changes page, the agent preview's Tests tab) on each view.

A run is a pure function of the workspace: it is kept by the sha256 of the workspace's
canonical text (`publish.canonical_text`, a tenth of a second at 20 MB) and the scenario
asked for, so a kept run can never be stale. The built-in checks of an agent of 200
skills of 100 KB assemble it again with hostile tool data, seconds a scenario, on every
view though no skill changed. A run in which a search was cut at its deadline
(`context_tests.bounded_search` gave None) is not kept: a busy machine's verdict is not
remembered. The editor's keystrokes do not come here: each types a new workspace.
"""

from __future__ import annotations

from webapp.bounds.lru import LRU
from webapp.pipeline import Workspace

from . import context_tests
from .publish import canonical_text, digest_of

#: The runs of the last few workspaces and scenarios, weighed by their results' texts (a
#: failing snapshot test holds what it expected and what it found).
_runs: LRU[tuple[str, str | None], context_tests.TestRun] = LRU(
    "context test runs", 32_000_000, weight=lambda key, run: sum(
        1 + len(r.message) + len(r.expected) + len(r.actual) for r in run.results))


def run_kept(workspace: Workspace, scenario: str | None = None) -> context_tests.TestRun:
    """`context_tests.run(workspace, scenario)`, kept by the workspace's content."""
    key = (digest_of(canonical_text(workspace)), scenario)
    kept = _runs.get(key)
    if kept is not None:
        return kept
    cut = []

    def search(pattern: str, text: str) -> bool | None:
        found = context_tests.bounded_search(pattern, text)
        if found is None:
            cut.append(pattern)
        return found

    run = context_tests.run(workspace, scenario, search=search)
    return run if cut else _runs.put(key, run)
