"""docs/api.md's Python examples, each run as it is written against a live server on
127.0.0.1 with a key made for it: an example that no longer works fails here."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.server import serve
from tests.support.waiting import wait_until
from webapp import db, delivery, store

API_MD = Path(__file__).resolve().parents[2] / "docs" / "api.md"
ENDPOINTS, WEBHOOKS = API_MD.read_text(encoding="utf-8").split("\n## Webhooks\n")
EXAMPLES = re.findall(r"```python\n(.*?)```", ENDPOINTS, re.DOTALL)
[RECEIVER] = re.findall(r"```python\n(.*?)```", WEBHOOKS, re.DOTALL)
#: What each example prints, in their order: snapshot #2 with its label, a 304, a turn
#: of snapshot #2, the document's paths.
PRINTS = [r"^2 [0-9a-f]{12} \['production'\]\n1 [0-9a-f]{12} \[\]$", r"^304$", r"^2 \d+ \d+$",
          r"'/api/v1/agents/\{agent\}/assemble'"]


@pytest.fixture
def server(app, published) -> Iterator[str]:
    """The app with Simon published, served on 127.0.0.1."""
    yield from serve(app)


def test_every_endpoint_has_an_example():
    text = "\n".join(EXAMPLES)
    assert len(EXAMPLES) == 4
    assert all(path in text for path in ("/snapshots\"", "/snapshots/production",
                                         "/assemble", "/openapi.json"))


@pytest.mark.parametrize(("example", "prints"), zip(EXAMPLES, PRINTS, strict=True),
                         ids=["snapshots", "revalidate", "assemble", "openapi"])
def test_the_example_runs(server, token, example, prints):
    key = token("read", "assemble")["Authorization"].removeprefix("Bearer ")
    result = subprocess.run([sys.executable, "-c", example], capture_output=True, text=True,
                            timeout=60, env={**os.environ, "SKILL_EDITOR_URL": server,
                                             "SKILL_EDITOR_TOKEN": key})
    assert result.returncode == 0, result.stderr
    assert re.search(prints, result.stdout.strip()), result.stdout


def test_the_webhook_receiver_verifies_what_a_publish_sends(app, session_factory, monkeypatch):
    monkeypatch.setenv(store.webhooks.ALLOW_PRIVATE, "1")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with app.app_context():
        session = db.get_session()
        store.create_agent(session, "demo")
        store.create_skill(session, "demo", "chat", triggers=["dm"], content="Hi.\n")
        made = store.webhooks.add_webhook(session, "demo", f"http://127.0.0.1:{port}/")
    receiver = subprocess.Popen(
        [sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "PORT": str(port),
                        "SKILL_EDITOR_WEBHOOK_SECRET": made.secret})
    try:
        wait_until(lambda: _listening(port) or receiver.poll() is not None, "the receiver")
        with app.app_context():
            store.publish(db.get_session(), "demo", "first", 0)
        while delivery.deliver_due(session_factory):
            pass
    finally:
        receiver.terminate()
        out, err = receiver.communicate(timeout=30)
    assert sorted(out.split("\n")[:2]) == ["label.moved demo", "snapshot.published demo"], err


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False
