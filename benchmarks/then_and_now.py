"""A keystroke in the browser, at an earlier commit and now, measured in one run:
`python -m benchmarks.then_and_now REV [--rounds N]`.

`REV` is checked out into a temporary `git worktree`; each round runs this tree's browser
measurement (`browser._measure`, chromium typing into the 200-skill editor) once against
`REV`'s app and once against this tree's, in turn, each in its own process with that
tree's `webapp` first on the path, so both see the same machine. Prints each round and
the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: What each process runs: the 200-skill keystroke of `browser.py`, with its figures as JSON.
_ONE = """
import json, sys, tempfile, threading
from pathlib import Path
from werkzeug.serving import make_server
from playwright.sync_api import sync_playwright
from webapp import store
from webapp.schema.db import session_scope
from benchmarks.browser import ARGS, CHROMIUM, _measure
from benchmarks.web import _app
from benchmarks.workspaces import scale_workspace

with tempfile.TemporaryDirectory() as folder:
    app = _app(Path(folder) / "b.sqlite", seed_demo=False)
    with session_scope(app.config["DATABASE_URL"]) as session:
        store.import_bundle(session, scale_workspace(200))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        rows = _measure(browser, f"http://127.0.0.1:{server.server_port}"
                        "/agents/Bench/skills/skill_100", "200 skills", "", int(sys.argv[1]))
        browser.close()
    server.shutdown()
print(json.dumps(rows))
"""


def measure(tree: Path, harness: Path, keys: int) -> float:
    """The median keystroke-to-repaint of `keys` keys, in ms, with `tree`'s app."""
    out = subprocess.run([sys.executable, "-c", _ONE, str(keys)], cwd=harness,
                         env={**os.environ, "PYTHONPATH": f"{harness}:{tree}"},
                         capture_output=True, text=True, timeout=600, check=True).stdout
    rows = json.loads(out.strip().splitlines()[-1])
    return float(rows[0][1].split()[0])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.then_and_now")
    parser.add_argument("rev", help="the earlier commit")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keys", type=int, default=8, help="keystrokes a measurement")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        then = Path(folder) / "then"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(then),
                        args.rev], check=True, capture_output=True)
        # This tree's harness, apart, so each process imports `webapp` from its own tree.
        harness = Path(folder) / "harness"
        shutil.copytree(ROOT / "benchmarks", harness / "benchmarks")
        try:
            figures: dict[str, list[float]] = {"then": [], "now": []}
            for round_ in range(args.rounds):
                for name, tree in (("then", then), ("now", ROOT)):
                    figures[name].append(measure(tree, harness, args.keys))
                print(f"round {round_ + 1}: then {figures['then'][-1]:.0f} ms, "
                      f"now {figures['now'][-1]:.0f} ms", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(then)], check=False, capture_output=True)
    then_ms, now_ms = (statistics.median(figures[k]) for k in ("then", "now"))
    print(f"keystroke to repaint, 200 skills (median of {args.rounds} rounds of "
          f"{args.keys} keys): {args.rev} {then_ms:.0f} ms, now {now_ms:.0f} ms "
          f"({now_ms / then_ms:.2f}x)")


if __name__ == "__main__":
    main()
