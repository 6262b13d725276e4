"""A client that is not ours and not Python: the official TypeScript SDK's
(`@modelcontextprotocol/sdk`, pinned in tests/mcp/ts/package-lock.json) lists and reads
an agent's skills over Streamable HTTP, and gets what the Python SDK's client gets."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.mcp import http_client, publish_edit
from tests.support.server import serve
from webapp import store
from webapp.mcp_server.http import run_alone
from webapp.schema import db

TS = Path(__file__).parent / "ts"
NODE, NPM = shutil.which("node"), shutil.which("npm")


@pytest.fixture(scope="module")
def ts_client(tmp_path_factory) -> Path:
    """The TypeScript client installed from its lockfile (`npm ci`) in a temporary folder."""
    if NODE is None or NPM is None:
        pytest.skip("node and npm are not installed: the TypeScript client cannot run")
    folder = tmp_path_factory.mktemp("ts-client")
    for name in ("package.json", "package-lock.json", "read_skills.mjs", "hear_changes.mjs"):
        shutil.copy(TS / name, folder / name)
    subprocess.run([NPM, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=folder,
                   check=True, capture_output=True, timeout=300)
    return folder


@pytest.fixture
def base(app, published_url):
    app.config["MCP_POLL_SECONDS"] = 0.1
    yield from serve(app)


def docs_key(app) -> str:
    with app.app_context():
        return store.api_keys.create_key(db.get_session(), "ts", ["read", "assemble"],
                                          "Docs").token


def test_the_typescript_sdk_lists_and_reads_the_skills(ts_client, app, base):
    token = docs_key(app)
    url = f"{base}/api/v1/agents/Docs/mcp"
    done = subprocess.run([NODE, "read_skills.mjs", url, token], cwd=ts_client,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)

    async def python_reads():
        async with http_client(url, token) as client:
            listed = (await client.list_resources()).resources
            return {r.uri: (await client.read_resource(r.uri)).contents[0].model_dump(
                mode="json", by_alias=True, exclude_none=True) for r in listed}

    assert got["capabilities"]["experimental"] == {"io.modelcontextprotocol/skills": {}}
    assert got["version"]["name"] == "skill-editor"
    assert "skill://pdf/SKILL.md" in got["read"] and len(got["read"]) > 10
    assert got["read"] == run_alone(python_reads)
    assert [r["uri"] for r in got["resources"]] == list(got["read"])
    assert got["prompts"] == []  # Docs has no scenario


def test_the_typescript_sdk_hears_when_production_moves(ts_client, app, base, published_url):
    """Its client opens the GET stream by itself once connected, and is told of a new
    snapshot published to production."""
    process = subprocess.Popen([NODE, "hear_changes.mjs", f"{base}/api/v1/agents/Docs/mcp",
                                docs_key(app)], cwd=ts_client, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        connected = json.loads(process.stdout.readline() or "{}")
        assert connected.get("connected"), process.stderr.read()
        assert connected["capabilities"]["resources"]["listChanged"] is True
        publish_edit(published_url)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 0, err
    got = json.loads(out)
    assert got["heard"] == ["notifications/resources/list_changed",
                            "notifications/prompts/list_changed"]
    assert got["text"].endswith("\nLive.\n")
