"""The runtime API under load: `python -m benchmarks.api` (not part of `make bench`).

Serves the app with gunicorn on a free port of 127.0.0.1, in each of its two deployments
(`SERVERS`: 2 sync workers, as docs/api.md deploys the API, and 2 workers of 4 threads,
as the README deploys the editor), on `DATABASE_URL` (PostgreSQL under `.ci/postgres.sh`; else a
SQLite file in a temporary folder) holding the demo agent Simon published with a key, and
points `wrk -t2 -c16 -d10s --latency` at:
a revalidation of `production` that answers 304 (`If-None-Match` with its ETag), and a
demo-size turn POSTed to `assemble` with tool results (`ASSEMBLE_SCRIPT`). Prints
requests per second, p50, p99 and errors.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from werkzeug.test import EnvironBuilder

from webapp import store
from webapp.app import create_app
from webapp.pipeline import load_bundle
from webapp.schema import db

from .web import _free_port, _lua_string

SIMON = Path(__file__).resolve().parents[1] / "webapp" / "demo" / "simon.json"
SECONDS = 10
#: gunicorn's arguments for the API's own server (docs/api.md, "Serving the API") and the
#: editor's (README): the first is what the targets are for.
SERVERS = {"api: 2 sync workers": ["-w", "2"],
           "editor: 2 workers of 4 threads": ["-w", "2", "--threads", "4"]}
#: A turn as a runtime posts it: a message, history and each mock tool's real result.
TURN = {"message": "What did people say about me today?", "provider": "anthropic",
        "history": [{"role": "user", "content": "hello"},
                    {"role": "assistant", "content": "Hi. What do you need?"}],
        "tool_results": {"agent_identity": {"success": True, "content": "npub1" + "x" * 58},
                         "nostr_agent_profile": {"success": True,
                                                 "content": json.dumps({"name": "Simon"})}}}
ASSEMBLE_SCRIPT = """
request = function()
  return wrk.format("POST", PATH, HEADERS, BODY)
end
"""


def prepare(url: str) -> str:
    """Simon imported, published (production) and a key made; returns its token."""
    engine = db.make_engine(url)
    db.upgrade(engine)
    engine.dispose()
    with db.session_scope(url) as session:
        store.import_bundle(session, load_bundle(SIMON))
        store.publish(session, "Simon", "bench", 0)
        return store.api_keys.create_key(session, "bench", ["read", "assemble"]).token


def wrk(base: str, path: str, headers: dict[str, str], body: str | None = None,
        seconds: int = SECONDS) -> dict[str, str]:
    """wrk's requests per second, p50, p99 and errors (a non-2xx/3xx answer counts)."""
    table = ", ".join(f"[{_lua_string(k)}] = {_lua_string(v)}" for k, v in headers.items())
    script = (f"PATH = {_lua_string(path)}\nHEADERS = {{{table}}}\n"
              f"BODY = {_lua_string(body or '')}\n"
              + (ASSEMBLE_SCRIPT if body is not None else
                 'request = function()\n  return wrk.format("GET", PATH, HEADERS)\nend\n'))
    with tempfile.TemporaryDirectory() as folder:
        lua = Path(folder) / "api.lua"
        lua.write_text(script, encoding="utf-8")
        out = subprocess.run([shutil.which("wrk") or "wrk", "-t2", "-c16", f"-d{seconds}s",
                              "--latency", "-s", str(lua), base], capture_output=True,
                             text=True, timeout=seconds + 30, check=False).stdout
    errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", out))
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)",
                       out)
    errors += sum(int(n) for n in socket.groups()) if socket else 0
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    return {"req/s": f"{float(rps[1]):.0f}" if rps else "?",
            "p50": _percentile(out, "50"), "p99": _percentile(out, "99"),
            "errors": str(errors)}


def _percentile(out: str, which: str) -> str:
    found = re.search(rf"^\s+{which}%\s+(\S+)", out, re.MULTILINE)
    return found[1] if found else "?"


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = os.environ.get("DATABASE_URL") or f"sqlite:///{Path(folder) / 'api.sqlite'}"
        token = prepare(url)
        print(f"database: {url.split(':', 1)[0]}")
        calls = in_process(url, token)
        print(f"in process (a WSGI call, best of 5 x 300): 304 {calls['304']:.2f} ms, "
              f"assemble {calls['assemble']:.2f} ms")
        print(f"wrk -t2 -c16 -d{SECONDS}s")
        for name, arguments in SERVERS.items():
            for row, figures in measure(url, token, arguments).items():
                print(f"{name}: {row}: {figures['req/s']} req/s, p50 {figures['p50']}, "
                      f"p99 {figures['p99']}, {figures['errors']} errors")


def in_process(url: str, token: str) -> dict[str, float]:
    """Milliseconds the app takes for a 304 and a turn called as WSGI, with no server."""
    os.environ.update(DATABASE_URL=url, SECRET_KEY="bench")
    app = create_app()
    auth = {"Authorization": f"Bearer {token}"}
    body = json.dumps(TURN).encode()
    production = EnvironBuilder(path="/api/v1/agents/Simon/snapshots/production",
                                headers=auth).get_environ()
    turn = EnvironBuilder(path="/api/v1/agents/Simon/assemble", method="POST", data=body,
                          headers={**auth, "Content-Type": "application/json"}).get_environ()

    def call(environ: dict[str, object], status: str) -> dict[str, str]:
        answer: list[tuple[str, list[tuple[str, str]]]] = []
        environ = {**environ, "wsgi.input": io.BytesIO(body)}
        b"".join(app.wsgi_app(environ, lambda code, headers, _=None: answer.append(
            (code, headers))))
        assert answer[0][0].startswith(status), answer[0][0]
        return dict(answer[0][1])

    production["HTTP_IF_NONE_MATCH"] = call(production, "200")["ETag"]
    return {"304": best_ms(lambda: call(production, "304")),
            "assemble": best_ms(lambda: call(turn, "200"))}


def best_ms(run: Callable[[], object], calls: int = 300) -> float:
    """The best of five rounds of `calls` calls, in milliseconds a call."""
    run()
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            run()
        rounds.append((time.perf_counter() - start) / calls * 1000)
    return min(rounds)


def measure(url: str, token: str, arguments: list[str]) -> dict[str, dict[str, str]]:
    """wrk's figures for a 304 revalidation and a turn, on gunicorn with `arguments`."""
    port = _free_port()
    gunicorn = shutil.which("gunicorn") or str(Path(sys.executable).parent / "gunicorn")
    server = subprocess.Popen(
        [gunicorn, *arguments, "-b", f"127.0.0.1:{port}", "--log-level", "warning",
         "webapp.app:create_app()"],
        env={**os.environ, "DATABASE_URL": url, "SECRET_KEY": "bench"},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        auth = {"Authorization": f"Bearer {token}"}
        production = "/api/v1/agents/Simon/snapshots/production"
        etag = ""
        for _ in range(100):
            try:
                request = urllib.request.Request(base + production, headers=auth)
                etag = urllib.request.urlopen(request, timeout=2).headers["ETag"]
                break
            except OSError:
                time.sleep(0.1)
        turn = ("/api/v1/agents/Simon/assemble",
                {**auth, "Content-Type": "application/json"}, json.dumps(TURN))
        # Warm up: each worker loads the token encoding on its first turn (a second).
        wrk(base, *turn, seconds=3)
        return {
            "304 revalidation of production": wrk(
                base, production, {**auth, "If-None-Match": etag}),
            "assemble, demo size, posted tool results": wrk(base, *turn),
        }
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
