"""Context test runs kept by what they ran on, for the pages that show every scenario's
tests (the Changes page, the agent preview's Tests tab) on each view.

A run is a pure function of the workspace and of the code that runs it. It is kept by the
sha256 of the workspace's canonical text (`publish.canonical_text`, a tenth of a second
at 20 MB) and the scenario asked for: in this process's memory, and in the database
(`kept_test_runs`, a row of the agent's, gone with it) under a key that also names the
app's code (`code_digest`) and the agent. So a kept run can never be stale, and a deploy
that changes a check is never answered by a verdict kept before it. The built-in checks
of an agent of 200 skills of 100 KB assemble it again with hostile tool data, seconds a
scenario: each process of a server (each gunicorn worker, each restart) would pay them
on its first view; it reads the row instead.

A run in which a search was cut at its deadline (`context_tests.bounded_search` gave None)
is not kept: a busy machine's verdict is not remembered. The editor's keystrokes do not
come here: each types a new workspace.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
from pathlib import Path

from sqlalchemy import delete, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from webapp.bounds.lru import LRU
from webapp.pipeline import TestResult, Workspace
from webapp.schema.kept_models import KeptTestRun

from . import context_tests
from .agents import AgentRef, get_agent
from .publish import canonical_text, digest_of

log = logging.getLogger(__name__)

#: The rows `kept_test_runs` holds: the newest are kept, the rest deleted as one is added.
KEPT_ROWS = 200
#: The longest run kept in the database, as JSON: a failing snapshot test holds what it
#: expected and what it found, and a run that big is kept in memory only.
KEPT_RUN_CHARS = 4 << 20

#: The runs of the last few workspaces and scenarios, weighed by their results' texts (a
#: failing snapshot test holds what it expected and what it found).
_runs: LRU[tuple[str, str | None], context_tests.TestRun] = LRU(
    "context test runs", 32_000_000, weight=lambda key, run: sum(
        1 + len(r.message) + len(r.expected) + len(r.actual) for r in run.results))


@functools.cache
def code_digest() -> str:
    """`files_digest` of the app's package: whatever a test run's verdict depends on
    besides the workspace, the token encoding included. Read once a process."""
    return files_digest(Path(__file__).resolve().parents[1])


def files_digest(root: Path) -> str:
    """The sha256 of every file under `root`, each by its path and bytes, compiled caches
    (`__pycache__`) aside."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*")
                       if p.is_file() and "__pycache__" not in p.relative_to(root).parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def run_kept(session: Session, agent: AgentRef, workspace: Workspace,
             scenario: str | None = None) -> context_tests.TestRun:
    """`context_tests.run(workspace, scenario)` of `agent` (its draft or a snapshot of
    it), kept by the workspace's content: from this process's memory, else from the
    database, else run (and kept in both)."""
    key = (digest_of(canonical_text(workspace)), scenario)
    kept = _runs.get(key)
    if kept is not None:
        return kept
    agent_id = get_agent(session, agent).id
    row_key = hashlib.sha256(json.dumps([code_digest(), agent_id, *key]).encode()).hexdigest()
    kept = _read(session, row_key)
    if kept is not None:
        return _runs.put(key, kept)
    cut = []

    def search(pattern: str, text: str) -> bool | None:
        found = context_tests.bounded_search(pattern, text)
        if found is None:
            cut.append(pattern)
        return found

    run = context_tests.run(workspace, scenario, search=search)
    if cut:
        return run
    _write(session, agent_id, row_key, run)
    return _runs.put(key, run)


def _read(session: Session, key: str) -> context_tests.TestRun | None:
    text = session.scalar(select(KeptTestRun.results).where(KeptTestRun.key == key))
    if text is None:
        return None
    return context_tests.TestRun(tuple(TestResult(**fields) for fields in json.loads(text)))


def _write(session: Session, agent_id: int, key: str, run: context_tests.TestRun) -> None:
    """Keep `run` in the database in a transaction of its own (the page's session may be
    reading), the oldest rows over `KEPT_ROWS` deleted. Best effort: another process
    keeping the same run first, or a database that cannot take the write now, leaves the
    run kept in memory only, and is logged."""
    text = json.dumps([dataclasses.asdict(result) for result in run.results])
    if len(text) > KEPT_RUN_CHARS:
        return
    with Session(session.get_bind()) as own:
        try:
            own.add(KeptTestRun(key=key, agent_id=agent_id, results=text))
            own.flush()
            older = (select(KeptTestRun.key).order_by(KeptTestRun.made_at.desc())
                     .offset(KEPT_ROWS))
            own.execute(delete(KeptTestRun).where(KeptTestRun.key.in_(older)))
            own.commit()
        except SQLAlchemyError as exc:
            own.rollback()
            log.info("a test run was not kept in the database: %s", exc)
