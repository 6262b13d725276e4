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
from webapp import outbound, store
from webapp.outbound import delivery
from webapp.schema import db

API_MD = Path(__file__).resolve().parents[2] / "docs" / "api.md"
ENDPOINTS, WEBHOOKS = API_MD.read_text(encoding="utf-8").split("\n## Webhooks\n")
EXAMPLES = re.findall(r"```python\n(.*?)```", ENDPOINTS, re.DOTALL)
#: The shell examples: the first sets the address and makes a key with the CLI.
SETUP, *SHELL = re.findall(r"```sh\n(.*?)```", ENDPOINTS.split("\n## Examples\n")[1],
                           re.DOTALL)
[RECEIVER] = re.findall(r"```python\n(.*?)```", WEBHOOKS, re.DOTALL)
IDS = ["snapshots", "revalidate", "assemble", "log", "openapi"]
#: What each Python example prints, in their order: snapshot #2 with its label, a 304, a
#: turn of snapshot #2, the report of that turn checked, the document's paths.
PRINTS = [r"^2 [0-9a-f]{12} \['production'\]\n1 [0-9a-f]{12} \[\]$", r"^304$", r"^2 \d+ \d+$",
          r"^matches 2$", r"'/api/v1/agents/\{agent\}/assemble'"]
#: What each shell example prints: the snapshots, the digest and a 304, a turn, a report,
#: the OpenAPI document.
SHELL_PRINTS = [r'^\{"agent":"Simon","snapshots":\[\{"number":2,',
                r"^[0-9a-f]{64}  bundle.json\n304$", r'"document":', r'"verdict":"differs"',
                r'"openapi": "3\.1']


@pytest.fixture
def server(app, published) -> Iterator[str]:
    """The app with Simon published, served on 127.0.0.1."""
    yield from serve(app)


def test_every_endpoint_has_an_example():
    text = "\n".join(EXAMPLES)
    assert len(EXAMPLES) == len(SHELL) == len(IDS)
    assert all(call in text for call in ("client.snapshots()", 'client.snapshot("production")',
                                         "client.assemble(", "client.report(", "/openapi.json"))
    assert all(f"/{path}" in shell for path, shell in zip(
        ["snapshots", "snapshots/production", "assemble", "log", "openapi.json"], SHELL,
        strict=True))


@pytest.mark.parametrize(("example", "prints"), zip(EXAMPLES, PRINTS, strict=True),
                         ids=IDS)
def test_the_example_runs(server, token, example, prints):
    key = token("read", "assemble", "log")["Authorization"].removeprefix("Bearer ")
    result = subprocess.run([sys.executable, "-c", example], capture_output=True, text=True,
                            timeout=60, env={**os.environ, "SKILL_EDITOR_URL": server,
                                             "SKILL_EDITOR_TOKEN": key})
    assert result.returncode == 0, result.stderr
    assert re.search(prints, result.stdout.strip()), result.stdout


@pytest.mark.parametrize(("example", "prints"), zip(SHELL, SHELL_PRINTS, strict=True), ids=IDS)
def test_the_shell_example_runs(server, database_url, tmp_path, example, prints):
    """Each shell example after the setup one, which makes its key with the CLI on the
    server's database; the address is the test server's."""
    script = f"set -e\n{SETUP}\nexport SKILL_EDITOR_URL={server}\n{example}"
    bin_folder = str(Path(sys.executable).parent)  # skill-editor, as the venv installs it
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                            timeout=120, cwd=tmp_path,
                            env={**os.environ, "DATABASE_URL": database_url,
                                 "PATH": f"{bin_folder}:{os.environ['PATH']}"})
    assert result.returncode == 0, result.stderr
    assert re.search(prints, result.stdout.strip()), result.stdout[:500]


def test_the_webhook_receiver_verifies_what_a_publish_sends(app, session_factory, token,
                                                            monkeypatch):
    monkeypatch.setenv(outbound.ALLOW_PRIVATE, "1")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with app.app_context():
        session = db.get_session()
        store.create_agent(session, "demo")
        store.create_skill(session, "demo", "chat", triggers=["dm"], content="Hi.\n")
        made = store.webhooks.add_webhook(session, "demo", f"http://127.0.0.1:{port}/")
    key = token("read", agent="demo")["Authorization"].removeprefix("Bearer ")
    served = serve(app)
    receiver = subprocess.Popen(
        [sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "PORT": str(port), "SKILL_EDITOR_URL": next(served),
                        "SKILL_EDITOR_TOKEN": key, "SKILL_EDITOR_WEBHOOK_SECRET": made.secret})
    try:
        wait_until(lambda: _listening(port) or receiver.poll() is not None, "the receiver")
        with app.app_context():
            store.publish(db.get_session(), "demo", "first", 0)
        while delivery.deliver_due(session_factory):
            pass
    finally:
        receiver.terminate()
        out, err = receiver.communicate(timeout=30)
        served.close()
    assert sorted(out.split("\n")[:2]) == ["label.moved demo", "snapshot.published demo"], err


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False
