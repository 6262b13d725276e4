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
