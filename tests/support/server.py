"""The app served on a free port, for the tests that drive it over HTTP (a browser, or
several clients at once)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

from werkzeug.serving import make_server


def serve(app) -> Iterator[str]:
    """Serve `app` on 127.0.0.1 on a free port in a thread; yields its URL, then stops it."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


def serve_gunicorn(database_url: str, *, workers: int = 2, worker_class: str = "sync",
                   config: dict[str, str] | None = None) -> Iterator[str]:
    """The app under gunicorn, as production runs it (sync workers, or `worker_class`
    with four threads each), with `config` as `SKILL_EDITOR_` variables, on a free port of
    127.0.0.1; yields its URL once it answers, then stops it."""
    import os
    import socket
    import subprocess
    import sys
    import urllib.request
    from pathlib import Path

    from .waiting import wait_until

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    gunicorn = Path(sys.executable).parent / "gunicorn"
    env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": "test",
           "SKILL_EDITOR_SEED_DEMO": "false",
           **{f"SKILL_EDITOR_{name}": value for name, value in (config or {}).items()}}
    threads = [] if worker_class == "sync" else ["--threads", "4"]
    process = subprocess.Popen([str(gunicorn), "-w", str(workers), "-k", worker_class,
                                *threads, "-b", f"127.0.0.1:{port}",
                                "webapp.app:create_app()"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def answers() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"gunicorn exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/api/v1/openapi.json", timeout=5):
                return True
        except OSError:
            return False

    try:
        wait_until(answers, "gunicorn to answer")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
