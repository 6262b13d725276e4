"""`python -m benchmarks` runs from the repository's root; the package carries no benchmark."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import webapp
from webapp.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_the_quick_benchmark_prints_the_pipeline_and_json_rows():
    """A smoke test, kept cheap: smaller inputs, fewer repetitions, no web section."""
    result = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--no-web"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("machine: ")
    assert lines[1].split() == ["figure", "measured", "target"]
    width = len(lines[1]) - len(f"  {'measured':>12}  target")  # the figure column's
    figures = [line[:width].rstrip() for line in lines[2:]]
    assert figures == [
        "peer template: assemble",
        "peer template: assemble, skill text changed each call",
        "scale: 10 skills of 2 KB, 50 tools",
        "scale: 100 skills of 2 KB, 50 tools",
        "json_to_markdown / json.loads, 200 KB, max 8 items",
        "json_to_markdown / json.loads, 200 KB, every item",
        "tests: a keystroke's tests (the badge: one scenario), 50 skills, 5 scenarios x 10 tests"
        " (median)",
        "tests: the open Tests tab, every scenario, 50 skills, 5 scenarios x 10 tests (median)",
        "tests: skill-editor test --bundle, 50 skills, 5 scenarios x 10 tests, whole command",
        "nostr: write and sign every event, 50 skills (median)",
        "nostr: verify and read back every event, 50 skills (median)",
        "nostr: publish to a local relay / read back from it, 50 skills",
    ]
    assert not any(line.startswith("web:") for line in lines)


def test_the_package_carries_no_benchmark_code():
    modules = [m.name for m in pkgutil.walk_packages(webapp.__path__, "webapp.")]
    assert "webapp.pipeline" in modules
    assert not [name for name in modules if "bench" in name]
    assert "bench" not in main.commands
