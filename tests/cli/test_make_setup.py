"""`make run` on a fresh checkout: the venv's set-up says one line of its own, and pip only
its errors (its notices and the editable install's output were noise before the server's
first line)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_setting_up_for_make_run_keeps_pip_quiet(tmp_path):
    planned = subprocess.run(["make", "-n", "-s", "--no-print-directory", "-C", str(ROOT),
                              f"VENV={tmp_path / 'venv'}", "run"],
                             capture_output=True, text=True, check=True).stdout.splitlines()
    installs = [line for line in planned if " -m pip " in line or "/pip install" in line]
    assert len(installs) == 2, planned
    assert all("-qq --disable-pip-version-check" in line for line in installs), installs
    assert planned[0].startswith('echo "Installing Skill Editor')
