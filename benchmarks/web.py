"""The web section: preview request times and throughput under load.

Each measurement runs against a throw-away SQLite database in a temporary folder:
the demo workspace, and a 200-skill workspace from `workspaces.scale_workspace`.
The throughput figure serves the app with gunicorn (2 workers) on a free port of
127.0.0.1 and points `wrk -t2 -c16 -d10s` at the saved-skill preview endpoint (GET),
and at the draft preview the editor POSTs on a keystroke (a Lua script, `POST_SCRIPT`).
"""

from __future__ import annotations

import html
import http.cookiejar
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from flask import Flask

from webapp import store
from webapp.app import create_app
from webapp.pipeline import dump_bundle
from webapp.schema.db import get_session, session_scope

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


#: wrk's script for the draft preview: a POST of the form the editor sends on a keystroke
#: (the skill's text with a new line typed, its version), with the session cookie and the
#: CSRF token a GET of the editor page handed out (`webapp/web/security.py` checks the
#: `X-CSRFToken` header against the session). Each request sends a new draft, as typing does.
POST_SCRIPT = """
local count = 0
request = function()
  count = count + 1
  local body = BODY .. count
  return wrk.format("POST", PATH, HEADERS, body)
end
"""


def _lua_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


def _post_script(base: str, agent: str, d_tag: str) -> str:
    """The Lua script that POSTs drafts of `d_tag` to its preview with a valid session."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{base}/agents/{agent}/skills/{d_tag}", timeout=10).read().decode()
    token = re.search(r'"X-CSRFToken": "([^"]+)"', page)
    version = re.search(r'name="version" value="(\d+)"', page)
    content = re.search(r'<textarea[^>]*name="content"[^>]*>(.*?)</textarea>', page, re.S)
    if not (token and version and content):
        raise RuntimeError("the editor page has no token, version or content")
    cookie = "; ".join(f"{c.name}={c.value}" for c in jar)
    # `content` last: the script appends " <count>" to the body, so to the draft.
    form = urllib.parse.urlencode({
        "version": version.group(1),
        "content": html.unescape(content.group(1)).removeprefix("\n") + PREVIEW_DRAFT_SUFFIX})
    headers = {"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true",
               "X-CSRFToken": token.group(1), "Cookie": cookie}
    table = ", ".join(f"[{_lua_string(k)}] = {_lua_string(v)}" for k, v in headers.items())
    return (f"PATH = {_lua_string(f'/agents/{agent}/skills/{d_tag}/preview')}\n"
            f"HEADERS = {{{table}}}\nBODY = {_lua_string(form + '+')}\n" + POST_SCRIPT)


def _wrk(db_path: Path, url_path: str, seconds: int,
         post: tuple[str, str] | None = None) -> tuple[str, str]:
    """Requests per second and error count of wrk against gunicorn with 2 workers: GETs of
    `url_path`, or, given `post` (agent, d_tag), draft-preview POSTs of that skill."""
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
        base = f"http://127.0.0.1:{port}"
        url = f"{base}{url_path}"
        for _ in range(100):
            try:
                urllib.request.urlopen(url, timeout=2).read()
                break
            except OSError:
                time.sleep(0.1)
        command = [wrk, "-t2", "-c16", f"-d{seconds}s", url]
        with tempfile.TemporaryDirectory() as folder:
            if post is not None:
                script = Path(folder) / "post.lua"
                script.write_text(_post_script(base, *post), encoding="utf-8")
                command[1:1] = ["-s", str(script)]
            out = subprocess.run(command, capture_output=True, check=False, text=True,
                                 timeout=seconds + 30).stdout
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
            rps, errors = _wrk(demo_db, "/agents/Simon/skills/personality/preview", 10,
                               post=("Simon", "personality"))
            rows.append(("web: wrk -t2 -c16 -d10s, gunicorn 2 workers, draft-preview POST",
                         rps, errors))
    return rows
