"""The web section: preview request times and throughput under load.

Each measurement runs against a throw-away SQLite database in a temporary folder:
the demo workspace, and a 200-skill workspace from `workspaces.scale_workspace`.
The throughput figure serves the app with gunicorn (2 workers) on a free port of
127.0.0.1 and points `wrk -t2 -c16 -d10s` at the saved-skill preview endpoint.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from flask import Flask

from webapp import store
from webapp.app import create_app
from webapp.db import get_session, session_scope
from webapp.pipeline import dump_bundle

from .workspaces import scale_workspace

Row = tuple[str, str, str]
PREVIEW_DRAFT_SUFFIX = "\n\n## Typed just now\nA line the author is typing {{agent_npub}}"


def _app(db_path: Path, seed_demo: bool) -> Flask:
    return create_app({"DATABASE_URL": f"sqlite:///{db_path}", "SEED_DEMO": seed_demo,
                       "SECRET_KEY": "bench", "TESTING": False})


def _preview_ms(app: Flask, agent: str, d_tag: str, requests: int) -> float:
    """Median time of a draft-preview request (an htmx keystroke), server side."""
    client = app.test_client()
    page = client.get(f"/agents/{agent}/skills/{d_tag}").get_data(as_text=True)
    token = re.search(r'"X-CSRFToken": "([^"]+)"', page)
    headers = {"HX-Request": "true", "X-CSRFToken": token.group(1) if token else ""}
    with app.app_context():
        row = store.get_skill(get_session(), agent, d_tag)
        content, version = row.content, row.version
    samples = []
    for i in range(requests + 3):
        form = {"content": f"{content}{PREVIEW_DRAFT_SUFFIX} {i}", "version": str(version)}
        start = time.perf_counter()
        response = client.post(f"/agents/{agent}/skills/{d_tag}/preview", data=form,
                               headers=headers)
        elapsed = (time.perf_counter() - start) * 1000
        if response.status_code != 200:
            raise RuntimeError(f"preview answered {response.status_code}")
        if i >= 3:  # warm-up first
            samples.append(elapsed)
    return statistics.median(samples)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wrk(db_path: Path, url_path: str, seconds: int) -> tuple[str, str]:
    """Requests per second and error count of wrk against gunicorn with 2 workers."""
    wrk = shutil.which("wrk")
    gunicorn = shutil.which("gunicorn") or str(Path(sys.executable).parent / "gunicorn")
    if not wrk:
        return "wrk not installed", "apt-get install wrk"
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db_path}", "SECRET_KEY": "bench"}
    server = subprocess.Popen(
        [gunicorn, "-w", "2", "-b", f"127.0.0.1:{port}", "--log-level", "warning",
         "webapp.app:create_app()"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        url = f"http://127.0.0.1:{port}{url_path}"
        for _ in range(100):
            try:
                urllib.request.urlopen(url, timeout=2).read()
                break
            except OSError:
                time.sleep(0.1)
        out = subprocess.run([wrk, "-t2", "-c16", f"-d{seconds}s", url], capture_output=True,
                             check=False, text=True, timeout=seconds + 30).stdout
    finally:
        server.terminate()
        server.wait(timeout=10)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", out))
    socket_errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    if socket_errors:
        errors += sum(int(n) for n in socket_errors.groups())
    return (f"{float(rps.group(1)):.0f} req/s" if rps else "no result"), f"{errors} errors"


def web_rows(quick: bool = False) -> list[Row]:
    """(figure, measured, target) rows for the web section."""
    rows = []
    requests = 10 if quick else 60
    with tempfile.TemporaryDirectory() as folder:
        demo_db = Path(folder) / "demo.sqlite"
        demo = _app(demo_db, seed_demo=True)
        rows.append(("web: preview request, demo workspace (median)",
                     f"{_preview_ms(demo, 'Simon', 'personality', requests):.1f} ms", "<= 20 ms"))
        big_db = Path(folder) / "big.sqlite"
        big = _app(big_db, seed_demo=False)
        bundle = dump_bundle(scale_workspace(200))
        bundle["agent"]["name"] = "Big"
        with session_scope(f"sqlite:///{big_db}") as session:
            store.import_bundle(session, bundle)
        rows.append(("web: preview request, 200-skill workspace (median)",
                     f"{_preview_ms(big, 'Big', 'skill_100', requests):.1f} ms", "<= 60 ms"))
        if not quick:
            rps, errors = _wrk(demo_db, "/agents/Simon/skills/personality/preview", 10)
            rows.append(("web: wrk -t2 -c16 -d10s, gunicorn 2 workers, preview", rps, errors))
    return rows
