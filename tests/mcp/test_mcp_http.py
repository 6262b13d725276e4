"""The MCP server over Streamable HTTP at /api/v1/agents/<agent>/mcp, against the app
served on a free port, with the SDK's own client: discovery, the skills byte for byte as
over stdio, the prompts as the API assembles them, and the API's answers to keys (401,
404 for another agent's key, 403 for a scope)."""

from __future__ import annotations

import httpx2
import pytest
from mcp import MCPError
from mcp.types import PromptReference

from tests.support.mcp import api_messages, http_client, stdio_client
from tests.support.server import serve, serve_gunicorn
from webapp import store
from webapp.mcp_server.http import run_alone
from webapp.schema import db

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "resources/list", "params": {}}
PROMPTS = {"jsonrpc": "2.0", "id": 2, "method": "prompts/list", "params": {}}
ACCEPT = {"Accept": "application/json, text/event-stream",
          "MCP-Protocol-Version": "2025-11-25"}


@pytest.fixture
def base(app, published_url):
    """The app, with Docs and Simon published, on a free port."""
    yield from serve(app)


@pytest.fixture
def key(app):
    """Make a key; returns its token."""
    def make(*scopes: str, agent: str | None = None) -> str:
        with app.app_context():
            return store.api_keys.create_key(db.get_session(), "mcp", list(scopes), agent).token
    return make


def mcp_url(base: str, agent: str, query: str = "") -> str:
    return f"{base}/api/v1/agents/{agent}/mcp{query}"


def post(url: str, body, token: str | None) -> httpx2.Response:
    headers = {**ACCEPT, **({"Authorization": f"Bearer {token}"} if token else {})}
    return httpx2.post(url, json=body, headers=headers, timeout=30)


def test_the_skills_over_http_are_the_skills_over_stdio(base, published_url, key):
    token = key("read", agent="Docs")

    async def both():
        async with http_client(mcp_url(base, "Docs"), token) as client:
            listed = (await client.list_resources()).resources
            over_http = {r.uri: (await client.read_resource(r.uri)).contents[0]
                         for r in listed}
            capabilities = client.server_capabilities
        async with stdio_client(published_url, "Docs") as client:
            over_stdio = {r.uri: (await client.read_resource(r.uri)).contents[0]
                          for r in (await client.list_resources()).resources}
        return capabilities, over_http, over_stdio

    capabilities, over_http, over_stdio = run_alone(both)
    assert capabilities.experimental == {"io.modelcontextprotocol/skills": {}}
    assert len(over_http) > 10 and over_http == over_stdio


def test_the_2026_era_discovers_the_extension_over_http(base, key):
    async def discover():
        async with http_client(mcp_url(base, "Docs"), key("read"), mode="auto") as client:
            return client.protocol_version, client.server_capabilities, \
                len((await client.list_resources()).resources)

    version, capabilities, count = run_alone(discover)
    assert version == "2026-07-28" and count > 10
    assert capabilities.extensions == {"io.modelcontextprotocol/skills": {}}


@pytest.mark.parametrize("authorization", [None, "se_wrong"])
def test_no_key_or_a_wrong_one_is_a_401(base, authorization):
    response = post(mcp_url(base, "Docs"), INIT, authorization)
    assert response.status_code == 401 and response.headers["WWW-Authenticate"].startswith(
        "Bearer")


def test_another_agents_key_is_a_404_as_for_no_agent(base, key):
    token = key("read", "assemble", agent="Simon")
    assert post(mcp_url(base, "Docs"), INIT, token).status_code == 404
    assert post(mcp_url(base, "Nobody"), INIT, token).status_code == 404


def test_a_label_that_points_nowhere_is_a_404(base, key):
    response = post(mcp_url(base, "Docs", "?label=staging"), INIT, key("read"))
    assert response.status_code == 404 and "staging" in response.json()["detail"]


@pytest.mark.parametrize(("body", "scope"), [(LIST, "assemble"), (PROMPTS, "read")])
def test_each_method_needs_its_scope(base, key, body, scope):
    """Resources need `read`, prompts `assemble`: a key with the other is a 403."""
    refused = post(mcp_url(base, "Simon"), body, key(scope))
    assert refused.status_code == 403 and "scope" in refused.json()["detail"]
    initialized = post(mcp_url(base, "Simon"), INIT, key(scope))
    assert initialized.status_code == 200
    offered = initialized.json()["result"]["capabilities"]
    assert ("resources" in offered, "prompts" in offered) == (
        (True, False) if scope == "read" else (False, True))
    assert post(mcp_url(base, "Simon"), INIT, key("log")).status_code == 403


def test_a_prompt_is_what_the_api_assembles_for_the_same_turn(base, key):
    token = key("assemble")

    async def prompts():
        async with http_client(mcp_url(base, "Simon"), token) as client:
            listed = (await client.list_prompts()).prompts
            got = {p.name: await client.get_prompt(p.name, {"message": "Hello there"})
                   for p in listed}
            completed = await client.complete(PromptReference(name=listed[0].name),
                                              {"name": "message", "value": ""})
            return listed, got, completed

    listed, got, completed = run_alone(prompts)
    assert listed and all(p.arguments[0].name == "message" for p in listed)
    assert completed.completion.values
    for name, prompt in got.items():
        answer = httpx2.post(f"{base}/api/v1/agents/Simon/assemble", timeout=30,
                             headers={"Authorization": f"Bearer {token}"},
                             json={"scenario": name, "message": "Hello there"}).json()
        assert api_messages(prompt) == answer["messages"]
        assert prompt.meta["skill-editor/snapshot"] == answer["snapshot"]


def test_an_unknown_prompt_and_too_many_arguments_are_invalid_params(base, key):
    token = key("assemble")

    async def hostile():
        errors = []
        async with http_client(mcp_url(base, "Simon"), token) as client:
            name = (await client.list_prompts()).prompts[0].name
            for args in [(name + "x", {}), (name, {f"v{i}": "" for i in range(1002)}),
                         (name, {"nosuchname": "1"})]:
                with pytest.raises(MCPError) as raised:
                    await client.get_prompt(*args)
                errors.append(raised.value.code)
        return errors

    assert run_alone(hostile) == [-32602] * 3


def test_a_body_over_the_limit_is_a_413(base, key):
    huge = {"jsonrpc": "2.0", "id": 3, "method": "prompts/get",
            "params": {"name": "x", "arguments": {"message": "x" * (1024 * 1024 + 1)}}}
    assert post(mcp_url(base, "Simon"), huge, key("assemble")).status_code == 413


def test_many_initializations_keep_no_session(base, key):
    """Stateless: each request is answered alone, no session is opened or counted."""
    token = key("read")
    answers = [post(mcp_url(base, "Docs"), INIT, token) for _ in range(30)]
    assert all(a.status_code == 200 for a in answers)
    assert not any("mcp-session-id" in a.headers for a in answers)


def test_no_stream_to_get_and_no_session_to_delete(base, key):
    """Stateless: a GET (the server's SSE stream) and a DELETE are 405, never a hang."""
    headers = {**ACCEPT, "Authorization": f"Bearer {key('read')}"}
    for method in ("GET", "DELETE"):
        answer = httpx2.request(method, mcp_url(base, "Docs"), headers=headers, timeout=30)
        assert answer.status_code == 405 and answer.headers["Allow"] == "POST"


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2, 3]", b'"x"'])
def test_a_body_that_is_no_json_rpc_is_a_400(base, key, body):
    headers = {**ACCEPT, "Authorization": f"Bearer {key('read')}",
               "Content-Type": "application/json"}
    answer = httpx2.post(mcp_url(base, "Docs"), content=body, headers=headers, timeout=30)
    assert answer.status_code == 400 and answer.json()["error"]["code"] in (-32700, -32602)


def test_gunicorns_sync_workers_serve_it(published_url, app, key):
    """Production's server: each request's event loop runs in a sync worker."""
    token = key("read", "assemble", agent="Simon")

    async def session(base: str):
        async with http_client(mcp_url(base, "Simon"), token) as client:
            prompts = (await client.list_prompts()).prompts
            prompt = await client.get_prompt(prompts[0].name, {"message": "Hi"})
            return len((await client.list_resources()).resources), prompt

    for base in serve_gunicorn(published_url):
        count, prompt = run_alone(session, base)
        assert count > 0 and prompt.messages
