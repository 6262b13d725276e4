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
from webapp.mcp_server.sessions import Streams
from webapp.schema import db
from webapp.web.api_mcp import STREAMS

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


def post(url: str, body, token: str | None, *, session: str | None = None
         ) -> httpx2.Response:
    headers = {**ACCEPT, **({"Authorization": f"Bearer {token}"} if token else {}),
               **({"Mcp-Session-Id": session} if session else {})}
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


def test_a_thousand_sessions_keep_nothing(app, published_url, key):
    """A session id is signed, not stored: a thousand initializations (in the app, on a
    server that holds streams) each get one of their own, each is read back on a later
    request, and the server holds nothing for them."""
    token = key("read")
    client = app.test_client()
    threaded = {"wsgi.multithread": True}
    headers = {**ACCEPT, "Authorization": f"Bearer {token}"}
    answers = [client.post("/api/v1/agents/Docs/mcp", json=INIT, headers=headers,
                           environ_overrides=threaded) for _ in range(1000)]
    assert all(a.status_code == 200 for a in answers)
    sessions = [a.headers["Mcp-Session-Id"] for a in answers]
    assert len(set(sessions)) == 1000
    for session in sessions[::100]:
        listed = client.post("/api/v1/agents/Docs/mcp", json=LIST, environ_overrides=threaded,
                             headers={**headers, "Mcp-Session-Id": session})
        assert listed.status_code == 200 and listed.get_json()["result"]["resources"]
    assert app.extensions.get(STREAMS, Streams()).open == {}


def test_a_session_of_another_key_or_none_of_ours_is_a_404(base, key):
    """As the transport answers an ended session: the client initializes again."""
    opened = post(mcp_url(base, "Docs"), INIT, key("read")).headers["Mcp-Session-Id"]
    for token, session in [(key("read"), opened), (key("read"), opened[:-3] + "abc"),
                           (key("read"), "x" * 500)]:
        answer = post(mcp_url(base, "Docs"), LIST, token, session=session)
        assert answer.status_code == 404 and "initialize" in answer.json()["detail"]
    other_label = post(mcp_url(base, "Docs", "?label=1"), LIST, key("read"), session=opened)
    assert other_label.status_code == 404


def test_a_session_is_not_deleted_and_a_stream_needs_its_accept(base, key):
    """A DELETE is a 405 (a signed session has nothing to end, as the protocol allows);
    a GET that does not accept `text/event-stream` is a 406, never a hang."""
    headers = {"Authorization": f"Bearer {key('read')}"}
    deleted = httpx2.delete(mcp_url(base, "Docs"), headers=headers, timeout=30)
    assert deleted.status_code == 405 and deleted.headers["Allow"] == "GET, POST"
    got = httpx2.get(mcp_url(base, "Docs"), headers={**headers, "Accept": "application/json"},
                     timeout=30)
    assert got.status_code == 406 and "text/event-stream" in got.json()["detail"]


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2, 3]", b'"x"'])
def test_a_body_that_is_no_json_rpc_is_a_400(base, key, body):
    headers = {**ACCEPT, "Authorization": f"Bearer {key('read')}",
               "Content-Type": "application/json"}
    answer = httpx2.post(mcp_url(base, "Docs"), content=body, headers=headers, timeout=30)
    assert answer.status_code == 400 and answer.json()["error"]["code"] in (-32700, -32602)


def test_gunicorns_sync_workers_serve_it_without_streams(published_url, app, key):
    """Production's server: each request's event loop runs in a sync worker, which serves
    one request at a time and so holds no stream: no session id, no GET, and no list is
    said to change (the client re-lists)."""
    token = key("read", "assemble", agent="Simon")

    async def session(base: str):
        async with http_client(mcp_url(base, "Simon"), token) as client:
            prompts = (await client.list_prompts()).prompts
            prompt = await client.get_prompt(prompts[0].name, {"message": "Hi"})
            return (len((await client.list_resources()).resources), prompt,
                    client.server_capabilities)

    for base in serve_gunicorn(published_url):
        count, prompt, capabilities = run_alone(session, base)
        assert count > 0 and prompt.messages
        assert not capabilities.resources.list_changed
        assert not capabilities.prompts.list_changed
        initialized = post(mcp_url(base, "Simon"), INIT, token)
        assert initialized.status_code == 200 and "mcp-session-id" not in initialized.headers
        stream = httpx2.get(mcp_url(base, "Simon"), timeout=30, headers={
            "Authorization": f"Bearer {token}", "Accept": "text/event-stream"})
        assert stream.status_code == 405 and stream.headers["Allow"] == "POST"
