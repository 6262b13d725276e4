"""Context tests' cost: the Tests tab's work on a keystroke, and `skill-editor test`.

On the 200-skill workspace with 20 scenarios of ten tests each (`tested_workspace`), on a
draft that changes each time: what every keystroke adds (the followed scenario's tests for
the Tests tab's badge, built-in ones included), what the open Tests tab adds (every
scenario holding the skill: `run_for_skill`), and the whole `skill-editor test --bundle`
command, process start included.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from webapp.pipeline import Workspace, bundle_text, dump_bundle
from webapp.store.context_tests import run, run_for_skill

from .pipeline import Row, median_ms
from .workspaces import tested_workspace


def tests_rows(quick: bool = False) -> list[Row]:
    """(figure, measured, target) rows for context tests."""
    workspace = tested_workspace(50 if quick else 200, 5 if quick else 20)
    size = f"{len(workspace.skills)} skills, {len(workspace.scenarios)} scenarios x 10 tests"
    skill = workspace.skills[len(workspace.skills) // 2]
    counter = iter(range(1_000_000))

    def drafted() -> Workspace:
        draft = dataclasses.replace(skill, content=f"{skill.content}\ntyped {next(counter)}")
        return dataclasses.replace(workspace, skills=tuple(
            draft if s.d_tag == skill.d_tag else s for s in workspace.skills))

    def badge() -> object:
        return run(drafted(), workspace.scenarios[0].name)

    def tab() -> object:
        return run_for_skill(drafted(), skill.d_tag)

    tab()  # warm the memos, as an open editor has them
    rows = [(f"tests: a keystroke's tests (the badge: one scenario), {size} (median)",
             f"{median_ms(badge, 5 if quick else 15, 1):.1f} ms", "<= 20 ms"),
            (f"tests: the open Tests tab, every scenario, {size} (median)",
             f"{median_ms(tab, 3 if quick else 7, 1):.0f} ms", "—")]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tested.json"
        path.write_text(bundle_text(dump_bundle(workspace)), encoding="utf-8")
        command = [str(Path(sys.executable).parent / "skill-editor"), "test", "--bundle",
                   str(path)]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"skill-editor test failed: {done.stdout[-500:]}{done.stderr}")
    rows.append((f"tests: skill-editor test --bundle, {size}, whole command",
                 f"{seconds:.2f} s", "< 2 s"))
    return rows
