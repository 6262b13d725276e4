"""The speed gate (`make bench-check`, `benchmarks.gate`) fails on a row over budget.

Nothing here compares a time with a number of seconds. The gate's own arithmetic is
checked on a clock that counts units of work (`Ticks`), so a loaded machine cannot move
it; the rows of the product are run on the real clock with work made many times over, so
their ratio is far past its budget on any machine.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from benchmarks import gate, gate_big, gate_hostile
from webapp.outbound import relays
from webapp.store import test_runs

#: `webapp.web.editor`, where the keystroke's route calls `build_preview`.
editor = importlib.import_module("webapp.web.editor")


class Ticks:
    """A clock that reads the units of work done so far."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


TICKS = Ticks()


def work(_: int = 0) -> None:
    """One unit of work."""
    TICKS.now += 1


def slowed(_: int = 0) -> None:
    """The floor's work, twenty times."""
    for _ in range(20):
        work()


def test_a_row_over_its_budget_fails_the_gate_and_is_named():
    rows = [gate.Timed("within", work, work, "work", 5.0),
            gate.Timed("slowed", slowed, work, "work", 5.0),
            gate.Growth("slowed / within", "slowed", "within", 6.0),
            gate.Counted("counted", lambda: 3, 2, "calls"),
            gate.Counted("counted within", lambda: 2, 2, "calls")]
    outcomes = gate.check(rows, runs=3, warmup=1, clock=TICKS)
    assert [o.name for o in outcomes if o.over] == ["slowed", "slowed / within", "counted"]
    status, last = gate.verdict(outcomes)
    assert status == 1 and last == "over budget: slowed; slowed / within; counted"
    printed = gate.table(outcomes).splitlines()
    assert printed[0].split() == ["row", "measured", "floor", "ratio", "budget"]
    assert [line.split("  ")[0] for line in printed[1:]] == [row.name for row in rows]
    assert printed[2].endswith("<= 5x   OVER") and printed[1].endswith("<= 5x   ok")


def test_within_budget_the_gate_passes():
    outcomes = gate.check([gate.Timed("within", work, work, "work", 5.0)], runs=3, warmup=1,
                          clock=TICKS)
    assert gate.verdict(outcomes) == (0, "all 1 rows within budget")


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> gate.Bench:
    """The gate's workspaces, small: agents of 20 and 40 skills."""
    return gate.make_bench(Path(tmp_path_factory.mktemp("gate")), (20, 40))


def test_every_row_of_the_gate_runs(bench):
    """The rows the gate runs in CI, once each: every request answers as the row expects
    (a row raises otherwise), and each has its figures."""
    outcomes = gate.check(gate.rows(bench, (20, 40)), runs=1, warmup=0)
    names = [o.name for o in outcomes]
    assert names[:4] == [f"keystroke, {panel}, 20 skills" for panel in gate.PANELS.values()]
    assert "keystroke, Tests, 40 / 20 skills" in names
    assert "api: 304, SQL statements" in names
    assert all(o.ratio > 0 for o in outcomes)


def test_every_big_agent_row_runs(bench):
    """The big agent's rows, on a small one: every page answers, each row has its figures."""
    outcomes = gate.check(gate.big_rows(bench, 4, 2_000, full_chars=3_000), runs=1, warmup=0)
    assert sorted(o.name for o in outcomes) == sorted([
        *(f"big agent: {page}, 4 skills of 2 KB" for page in gate.BIG_BUDGETS),
        "big agent: skills run again by a save and the Changes page, 4 skills of 3 KB",
        "big agent: hostile shapes a new process's Changes page makes, 4 skills of 2 KB"])
    by_name = {o.name.partition(",")[0]: o for o in outcomes}
    new_process = by_name.pop("big agent: hostile shapes a new process's Changes page makes")
    assert all(o.ratio > 0 for o in by_name.values())
    saved = by_name["big agent: skills run again by a save and the Changes page"]
    assert 0 < saved.ratio <= 1 and not saved.over
    assert new_process.measured == "0 shapes" and not new_process.over


def test_a_new_process_that_runs_every_check_again_fails_its_row(tmp_path, monkeypatch):
    """Test runs no longer read from the database (in this test only): a new process's
    Changes page makes every skill's hostile shape again, and its row is over."""
    bench = gate.make_bench(tmp_path, (20,))
    gate_big.add_agent(bench, 4, 2_000)
    monkeypatch.setattr(test_runs, "_read", lambda session, key: None)
    [outcome] = gate.check([gate.Counted("new process", gate_big.shapes_made_by_a_new_process(
        bench), 0, "shapes")], runs=1, warmup=0)
    assert outcome.measured == "4 shapes" and outcome.over


def test_a_slowed_preview_fails_the_keystroke_rows(bench, monkeypatch):
    """The product's keystroke made ten times the work (in this test only): the gate's
    keystroke rows catch it."""
    build = editor.build_preview

    def ten_times(*args, **kwargs):
        for _ in range(9):
            build(*args, **kwargs)
        return build(*args, **kwargs)

    monkeypatch.setattr(editor, "build_preview", ten_times)
    rows = [row for row in gate.rows(bench, (40,)) if row.name.startswith("keystroke, Diff")]
    outcomes = gate.check(rows[:1], runs=3, warmup=1)
    assert outcomes[0].name == "keystroke, Diff, 40 skills" and outcomes[0].over


def test_the_relay_row_catches_a_flood_parsed_whole(monkeypatch):
    """With the message bound lifted (in this test only), the flooded fetch holds its
    events parsed and the memory row is over its limit; with it, far under."""
    assert gate_hostile.relay_memory() < gate.RELAY_MIB
    monkeypatch.setattr(relays, "MAX_CONTAINERS", 10**9)
    # Time enough to take every event even on a loaded machine: the whole parse is slow.
    assert gate_hostile.relay_memory(timeout=300) > gate.RELAY_MIB
