"""Context test runs kept by content (`store.test_runs`): the pages that show every
scenario's tests run them once a workspace, not on every view."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import select

from tests.support.workspaces import SIMON
from webapp import store
from webapp.bounds.lru import LRU
from webapp.pipeline import load_bundle
from webapp.schema.kept_models import KeptTestRun
from webapp.store import context_tests, test_runs


def with_pattern(pattern: str):
    """Simon with a `regex` test on its first scenario."""
    workspace = load_bundle(SIMON)
    first = dataclasses.replace(workspace.scenarios[0], expect=({"regex": pattern},))
    return dataclasses.replace(workspace, scenarios=(first, *workspace.scenarios[1:]))


AGENT = "Simon"


@pytest.fixture
def agent(session) -> str:
    """The agent whose runs are kept: Simon, in the test's database."""
    store.import_bundle(session, load_bundle(SIMON))
    session.commit()
    return AGENT


def kept_rows(session) -> list[str]:
    """The keys of the runs kept in the database, oldest first."""
    return list(session.scalars(select(KeptTestRun.key).order_by(KeptTestRun.made_at)))


def new_process(monkeypatch) -> None:
    """Nothing kept in this process's memory, as in a process just started."""
    monkeypatch.setattr(test_runs, "_runs", LRU("context test runs", 32_000_000))


def counting(monkeypatch) -> list[object]:
    """Count the runs `run_kept` makes, with nothing kept before."""
    runs: list[object] = []
    real = context_tests.run
    monkeypatch.setattr(context_tests, "run", lambda *a, **k: runs.append(a) or real(*a, **k))
    new_process(monkeypatch)
    return runs


def test_a_run_is_kept_by_the_workspace_s_content_and_scenario(monkeypatch, session, agent):
    runs = counting(monkeypatch)
    workspace = with_pattern("Simon")
    first = test_runs.run_kept(session, AGENT, workspace)
    other_content = load_bundle(SIMON)
    assert test_runs.run_kept(session, AGENT, other_content) and len(runs) == 2
    assert test_runs.run_kept(session, AGENT, with_pattern("Simon")) == first and len(runs) == 2
    assert first == context_tests.run(workspace)
    test_runs.run_kept(session, AGENT, workspace, workspace.scenarios[0].name)
    assert len(runs) == 4  # another scenario asked for (and the direct run above)


def test_a_run_whose_search_was_cut_is_not_kept(monkeypatch, session, agent):
    runs = counting(monkeypatch)
    monkeypatch.setattr(context_tests, "bounded_search", lambda pattern, text: None)
    workspace = with_pattern("Simon")
    cut = test_runs.run_kept(session, AGENT, workspace)
    assert cut.failures and len(runs) == 1
    test_runs.run_kept(session, AGENT, workspace)
    assert len(runs) == 2 and kept_rows(session) == []  # not in the database either


def test_a_process_reads_the_run_another_kept_in_the_database(monkeypatch, session, agent):
    runs = counting(monkeypatch)
    workspace = with_pattern("Simon")
    first = test_runs.run_kept(session, AGENT, workspace)
    assert len(runs) == 1 and len(kept_rows(session)) == 1
    new_process(monkeypatch)
    assert test_runs.run_kept(session, AGENT, workspace) == first and len(runs) == 1
    assert first.failures == [] and len(first.results) > 1  # results of every kind, read back
    new_process(monkeypatch)
    test_runs.run_kept(session, AGENT, workspace, workspace.scenarios[0].name)  # another scenario
    assert len(runs) == 2 and len(kept_rows(session)) == 2


def test_a_failing_run_reads_back_with_what_it_expected_and_found(monkeypatch, session, agent):
    runs = counting(monkeypatch)
    workspace = with_pattern("no such words")
    first = test_runs.run_kept(session, AGENT, workspace)
    new_process(monkeypatch)
    again = test_runs.run_kept(session, AGENT, workspace)
    assert again == first and again.failures and len(runs) == 1


def test_a_run_kept_by_other_code_is_not_read(monkeypatch, session, agent):
    """A deploy that changes the code (a check, the token encoding) runs the tests again:
    no verdict kept before it answers."""
    runs = counting(monkeypatch)
    workspace = with_pattern("Simon")
    test_runs.run_kept(session, AGENT, workspace)
    new_process(monkeypatch)
    monkeypatch.setattr(test_runs, "code_digest", lambda: "0" * 64)
    test_runs.run_kept(session, AGENT, workspace)
    assert len(runs) == 2 and len(kept_rows(session)) == 2


def test_the_code_digest_names_every_file_of_the_package_but_compiled_caches(tmp_path):
    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "encoding.gz").write_bytes(b"\x1f\x8b")
    first = test_runs.files_digest(tmp_path)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"compiled")
    assert test_runs.files_digest(tmp_path) == first
    (tmp_path / "data" / "encoding.gz").write_bytes(b"\x1f\x8c")  # a byte of data
    changed = test_runs.files_digest(tmp_path)
    (tmp_path / "data" / "encoding.gz").rename(tmp_path / "encoding.gz")  # a file moved
    moved = test_runs.files_digest(tmp_path)
    assert len({first, changed, moved}) == 3
    assert len(test_runs.code_digest()) == 64


def test_the_database_keeps_the_newest_runs(monkeypatch, session, agent):
    counting(monkeypatch)
    monkeypatch.setattr(test_runs, "KEPT_ROWS", 2)
    for word in ("Simon", "says", "hello"):
        test_runs.run_kept(session, AGENT, with_pattern(word))
    newest = kept_rows(session)
    assert len(newest) == 2
    test_runs.run_kept(session, AGENT, with_pattern("again"))
    assert kept_rows(session)[0] == newest[1] and len(kept_rows(session)) == 2


def test_a_run_too_long_for_the_database_is_kept_in_memory_only(monkeypatch, session, agent):
    runs = counting(monkeypatch)
    monkeypatch.setattr(test_runs, "KEPT_RUN_CHARS", 10)
    workspace = with_pattern("Simon")
    test_runs.run_kept(session, AGENT, workspace)
    test_runs.run_kept(session, AGENT, workspace)
    assert len(runs) == 1 and kept_rows(session) == []


def test_a_run_another_process_kept_first_is_still_answered(monkeypatch, session, agent):
    """Two processes that run the same tests at once: the second's row is refused (the
    key is taken), and its page still gets its run."""
    runs = counting(monkeypatch)
    workspace = with_pattern("Simon")
    first = test_runs.run_kept(session, AGENT, workspace)
    new_process(monkeypatch)
    monkeypatch.setattr(test_runs, "_read", lambda session, key: None)  # not there yet
    assert test_runs.run_kept(session, AGENT, workspace) == first
    assert len(runs) == 2 and len(kept_rows(session)) == 1


def test_an_agent_s_kept_runs_go_with_it_and_are_its_own(monkeypatch, session, agent):
    """A failing test's result holds text of the agent's document: purging the agent
    deletes its kept runs; another agent's run of the same content is its own row."""
    runs = counting(monkeypatch)
    workspace = with_pattern("Simon")
    test_runs.run_kept(session, agent, workspace)
    store.import_bundle(session, load_bundle(SIMON), agent_name="Twin")
    new_process(monkeypatch)
    test_runs.run_kept(session, "Twin", workspace)
    assert len(runs) == 2 and len(kept_rows(session)) == 2
    store.delete_agent(session, "Twin")
    store.purge_agent(session, "Twin")
    assert len(kept_rows(session)) == 1
    new_process(monkeypatch)
    test_runs.run_kept(session, agent, workspace)
    assert len(runs) == 2  # Simon's row stayed
