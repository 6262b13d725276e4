"""The runtime API's endpoints: keys and scopes, one agent's key against another, revoked
keys, snapshots by number, label and `latest`, ETags and 304s, a turn assembled as the CLI
assembles it, and hostile bodies (a 4xx problem, never a 500)."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from click.testing import CliRunner
from sqlalchemy import event

from webapp import store
from webapp.cli import main
from webapp.schema import db

PROBLEM = "application/problem+json"
SNAPSHOTS = "/api/v1/agents/{agent}/snapshots"
SNAPSHOT = "/api/v1/agents/{agent}/snapshots/{ref}"
ASSEMBLE = "/api/v1/agents/{agent}/assemble"
EVERY_FORM = ["messages", "document", "request_body", "log_entry"]
LOG = "/api/v1/agents/{agent}/log"
SCENARIO = "admin asks about mentions"


def is_problem(response, status: int) -> bool:
    body = response.get_json(force=True)
    return (response.status_code == status and response.mimetype == PROBLEM
            and body["status"] == status and isinstance(body["detail"], str) and body["detail"])


def calls(agent: str = "Simon") -> list[tuple[str, str, dict | None]]:
    """One request per endpoint that needs a key: (method, path, JSON body)."""
    return [("GET", SNAPSHOTS.format(agent=agent), None),
            ("GET", SNAPSHOT.format(agent=agent, ref="production"), None),
            ("POST", ASSEMBLE.format(agent=agent), {}),
            ("POST", LOG.format(agent=agent), {"messages": []})]


@pytest.mark.parametrize("index", range(len(calls())))
@pytest.mark.parametrize("authorization", [None, "Bearer", "Bearer se_wrong", "Basic abc"])
def test_no_key_or_a_wrong_one_is_a_401_problem(client, published, index, authorization):
    method, path, body = calls()[index]
    headers = {"Authorization": authorization} if authorization else {}
    response = client.open(path, method=method, json=body, headers=headers)
    assert is_problem(response, 401)
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert "Set-Cookie" not in response.headers


@pytest.mark.parametrize("index", range(len(calls())))
def test_a_revoked_key_is_refused(app, client, published, token, index):
    headers = token("read", "assemble", "log")
    with app.app_context():
        key_id = store.api_keys.list_keys(db.get_session())[0][0].id
        store.api_keys.revoke_key(db.get_session(), key_id)
    method, path, body = calls()[index]
    assert is_problem(client.open(path, method=method, json=body, headers=headers), 401)


@pytest.mark.parametrize(("index", "scope"), [(0, "read"), (1, "read"), (2, "assemble"),
                                              (3, "log")])
def test_each_scope_is_allowed_and_refused(client, published, token, index, scope):
    method, path, body = calls()[index]
    allowed = client.open(path, method=method, json=body, headers=token(scope))
    assert allowed.status_code in (200, 201) and "Set-Cookie" not in allowed.headers
    others = [s for s in store.api_keys.SCOPES if s != scope]
    assert is_problem(client.open(path, method=method, json=body, headers=token(*others)), 403)


@pytest.mark.parametrize("index", range(len(calls())))
def test_a_key_of_one_agent_sees_nothing_of_another(client, published, token, index):
    """Another agent's key gets what a missing agent gets: a 404 saying the same."""
    headers = token("read", "assemble", "log", agent="Simon")
    method, path, body = calls("Other")[index]
    other = client.open(path, method=method, json=body, headers=headers)
    method, path, body = calls("Nobody")[index]
    missing = client.open(path, method=method, json=body, headers=headers)
    assert is_problem(other, 404) and is_problem(missing, 404)
    assert other.get_json()["detail"].replace("Other", "X") == missing.get_json()[
        "detail"].replace("Nobody", "X")
    method, path, body = calls("Other")[index]
    assert client.open(path, method=method, json=body,
                       headers=token("read", "assemble", "log")).status_code in (200, 201)


def test_snapshots_lists_numbers_digests_notes_and_labels(client, published, token):
    response = client.get(SNAPSHOTS.format(agent="Simon"), headers=token("read"))
    body = response.get_json()
    assert [(s["number"], s["note"], s["labels"]) for s in body["snapshots"]] == [
        (2, "second", ["production"]), (1, "first", [])]
    assert all(len(s["digest"]) == 64 and s["published_at"] for s in body["snapshots"])


def test_a_numbered_snapshot_is_its_bundle_byte_for_byte_and_immutable(app, client, published,
                                                                        token):
    response = client.get(SNAPSHOT.format(agent="Simon", ref="1"), headers=token("read"))
    with app.app_context():
        row = store.get_snapshot(db.get_session(), "Simon", 1)
    assert response.data == row.bundle.encode("utf-8")
    assert hashlib.sha256(response.data).hexdigest() == row.digest
    assert response.headers["ETag"] == f'"{row.digest}"'
    assert response.headers["Cache-Control"] == "private, max-age=31536000, immutable"
    assert "Authorization" in response.headers["Vary"]


@pytest.mark.parametrize(("ref", "number"), [("production", 2), ("latest", 2)])
def test_a_label_is_revalidated_and_names_its_snapshot(client, published, token, ref, number):
    headers = token("read")
    response = client.get(SNAPSHOT.format(agent="Simon", ref=ref), headers=headers)
    assert response.headers["Cache-Control"] == "no-cache"
    assert response.headers["X-Snapshot-Number"] == str(number)
    again = client.get(SNAPSHOT.format(agent="Simon", ref=ref),
                       headers={**headers, "If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    assert again.headers["ETag"] == response.headers["ETag"]
    stale = client.get(SNAPSHOT.format(agent="Simon", ref=ref),
                       headers={**headers, "If-None-Match": '"' + "0" * 64 + '"'})
    assert stale.status_code == 200


@pytest.mark.parametrize(("ref", "statements"), [("production", 1), ("2", 2), ("latest", 2)])
def test_a_revalidation_is_one_read_of_the_key_and_the_label(app, client, published, token,
                                                              ref, statements):
    """A runtime revalidates many times a second: a 304 reads the key, its agent and a
    label's snapshot in one statement (a number or `latest` in one more), never the bundle."""
    headers = token("read")
    url = SNAPSHOT.format(agent="Simon", ref=ref)
    etag = client.get(url, headers=headers).headers["ETag"]  # notes the key's use: a write
    sent: list[str] = []
    with app.app_context():
        engine = db.get_database().engine
    record = lambda *args: sent.append(args[2])  # noqa: E731
    event.listen(engine, "before_cursor_execute", record)
    try:
        again = client.get(url, headers={**headers, "If-None-Match": etag})
    finally:
        event.remove(engine, "before_cursor_execute", record)
    selects = [text for text in sent if text.lstrip().upper().startswith("SELECT")]
    assert again.status_code == 304
    assert len(selects) == statements and not any("bundle" in text for text in selects)


def test_moving_production_back_is_what_the_api_serves(app, client, published, token):
    headers = token("read")
    first = client.get(SNAPSHOT.format(agent="Simon", ref="production"), headers=headers)
    with app.app_context():
        store.move_label(db.get_session(), "Simon", "production", 1)
    moved = client.get(SNAPSHOT.format(agent="Simon", ref="production"),
                       headers={**headers, "If-None-Match": first.headers["ETag"]})
    assert moved.status_code == 200 and moved.headers["X-Snapshot-Number"] == "1"


@pytest.mark.parametrize("ref", ["staging", "9", "0", "draft", "x" * 300, "²", "1234567890"])
def test_a_reference_to_nothing_is_a_404_problem(client, published, token, ref):
    assert is_problem(client.get(SNAPSHOT.format(agent="Simon", ref=ref),
                                 headers=token("read")), 404)


def undated(entry: str) -> str:
    return re.sub(r"^<!-- context-log: \S+", "<!-- context-log: T", entry)


def cli_json(database_url: str, *args: str) -> str:
    result = CliRunner().invoke(main, ["assemble", "--agent", "Simon", *args, "--database-url",
                                       database_url], catch_exceptions=False)
    return result.stdout


@pytest.mark.parametrize(("ref", "cli_args"), [
    ("production", ["--published"]), (1, ["--snapshot", "1"]), ("latest", ["--published"])])
def test_a_turn_is_what_the_cli_assembles(client, published, token, database_url, ref,
                                          cli_args):
    response = client.post(ASSEMBLE.format(agent="Simon"), headers=token("assemble"),
                           json={"snapshot": ref, "scenario": SCENARIO, "include": EVERY_FORM})
    body = response.get_json()
    cli = json.loads(cli_json(database_url, *cli_args, "--scenario", SCENARIO,
                              "--format", "json"))
    assert body["document"] == cli["document"]
    assert body["messages"] == cli["messages"]
    assert body["diagnostics"] == cli["diagnostics"]
    # The same entry but for the time it was made at.
    assert undated(body["log_entry"]) == undated(cli_json(
        database_url, *cli_args, "--scenario", SCENARIO, "--format", "log"))
    assert body["snapshot"] == (1 if ref == 1 else 2) and body["scenario"] == SCENARIO
    assert body["request_body"]["messages"] == body["messages"]
    assert body["tokens"]["document"] > 0 and len(body["tokens"]["messages"]) == len(
        body["messages"])


def test_posted_inputs_replace_the_scenarios(client, published, token):
    headers = token("assemble")
    plain = client.post(ASSEMBLE.format(agent="Simon"), headers=headers,
                        json={"include": EVERY_FORM}).get_json()
    posted = client.post(ASSEMBLE.format(agent="Simon"), headers=headers, json={
        "include": EVERY_FORM, "message": "A posted message ✓", "provider": "anthropic",
        "history": [{"role": "user", "content": "posted history line"}],
        "tool_results": {tool: {"success": True, "content": f"posted result of {tool}"}
                         for tool in ("agent_identity", "nostr_agent_profile")},
    }).get_json()
    assert "A posted message ✓" in posted["document"]
    assert "A posted message ✓" not in plain["document"]
    assert posted["request_body"]["model"] != plain["request_body"]["model"]  # Anthropic's
    assert posted["document"] != plain["document"]


def test_an_answer_carries_the_context_once_unless_asked_for_more(client, published, token):
    """Each form of the context (messages, document, request body, log entry) holds the
    whole of it: a turn answers the messages alone unless `include` asks, so a megabyte's
    message comes back about once, not four times."""
    headers = token("assemble")
    message = "word " * 200_000
    answer = client.post(ASSEMBLE.format(agent="Simon"), headers=headers,
                         json={"message": message})
    body = answer.get_json()
    assert answer.status_code == 200 and {"document", "request_body", "log_entry"}.isdisjoint(body)
    assert any(message.strip() in m["content"] for m in body["messages"])
    assert len(answer.data) < 1.2 * len(message)
    asked = client.post(ASSEMBLE.format(agent="Simon"), headers=headers, json={
        "message": "hi", "include": ["log_entry", "request_body"]}).get_json()
    assert "messages" not in asked and "document" not in asked
    assert asked["request_body"]["messages"] and asked["log_entry"].startswith("<!--")
    refused = client.post(ASSEMBLE.format(agent="Simon"), headers=headers,
                          json={"include": ["everything"]})
    assert is_problem(refused, 422) and "include" in refused.get_json()["detail"]


MOCK_NPUB = "npub1kfc89dlu9m05tvfnry4l3jjacqpp930sz4kaghcmg9vrrrceg44qf80xae"


def test_a_turn_without_a_scenario_carries_no_mock_data(client, published, token):
    """The demo's mock npub reaches a turn only when the turn names the scenario, and the
    answer then says which inputs the scenario gave."""
    headers = token("assemble")
    alone = client.post(ASSEMBLE.format(agent="Simon"), headers=headers,
                        json={"message": "Who mentioned me?", "include": ["document"]}
                        ).get_json()
    assert MOCK_NPUB not in alone["document"] and alone["scenario"] is None
    assert alone["from_scenario"] == []
    named = {d["message"].split("`")[3] for d in alone["diagnostics"]
             if d["code"] == "tool-not-called"}
    assert named == {"agent_identity", "nostr_agent_profile"}
    given = client.post(ASSEMBLE.format(agent="Simon"), headers=headers,
                        json={"scenario": SCENARIO, "message": "Who mentioned me?",
                              "include": ["document"]}).get_json()
    assert MOCK_NPUB in given["document"]
    assert given["from_scenario"] == ["trigger", "history", "tool_results.agent_identity",
                                      "tool_results.nostr_agent_profile"]


@pytest.mark.parametrize(("body", "named"), [
    ({"tool_results": {"agent_identty": {"success": True, "content": "npub1x"}}},
     "tool_results: the snapshot has no tool 'agent_identty'; did you mean 'agent_identity'?"),
    ({"variables": {"agent_profil": "x"}}, "variables: the snapshot has no name 'agent_profil'"),
    ({"scenario": "admin asks about mention"}, "did you mean 'admin asks about mentions'?"),
])
def test_a_misspelled_name_is_a_422_naming_it(client, published, token, body, named):
    response = client.post(ASSEMBLE.format(agent="Simon"), headers=token("assemble"), json=body)
    assert is_problem(response, 422) and named in response.get_json()["detail"]


def test_the_draft_needs_the_draft_scope(app, client, published, token):
    with app.app_context():
        session = db.get_session()
        chat = store.get_skill(session, "Simon", "chat")
        store.save_skill(session, "Simon", "chat", expected_version=chat.version,
                         content=chat.content + "\nUnpublished line.\n")
    refused = client.post(ASSEMBLE.format(agent="Simon"), headers=token("assemble"),
                          json={"snapshot": "draft"})
    assert is_problem(refused, 403)
    draft = client.post(ASSEMBLE.format(agent="Simon"), headers=token("assemble", "draft"),
                        json={"snapshot": "draft", "include": ["document"]}).get_json()
    assert draft["snapshot"] is None and "Unpublished line." in draft["document"]


@pytest.mark.parametrize(("body", "status"), [
    (b"x" * (1024 * 1024 + 1), 413),
    (b"[" * 100_000 + b"]" * 100_000, 422),
    (b'{"snapshot": ' + b'{"a": ' * 60 + b"1" + b"}" * 60 + b"}", 422),
    (b"not json", 422),
    (b"\xff\xfe", 422),
    (b"[]", 422),
    (b'{"message": 12}', 422),
    (b'{"history": "yesterday"}', 422),
    (b'{"history": [{"role": "robot", "content": ""}]}', 422),
    (b'{"provider": "gemini"}', 422),
    (b'{"unknown": 1}', 422),
    (b'{"scenario": "no such scenario"}', 422),
    (b'{"message": "\\ud800"}', 422),
    (b'{"tool_results": {"\\udfff": 1}}', 422),
    (b'{"variables": {"\\udfff": "x"}}', 422),
    (b'{"snapshot": "\\u00b2"}', 404),
    (b'{"tool_results": []}', 422),
    (b'{"variables": {"agent_profile": "x"}}', 422),
])
def test_a_hostile_body_is_a_4xx_problem(client, published, token, body, status):
    response = client.post(ASSEMBLE.format(agent="Simon"), data=body,
                           headers={**token("assemble"), "Content-Type": "application/json"})
    assert is_problem(response, status)


def test_a_body_not_sent_as_json_is_a_415_problem(client, published, token):
    response = client.post(ASSEMBLE.format(agent="Simon"), data={"snapshot": "1"},
                           headers=token("assemble"))
    assert is_problem(response, 415)


def test_failed_keys_are_throttled(client, published, token):
    good = token("read")
    for _ in range(store.throttling.FREE_FAILURES):
        client.get(SNAPSHOTS.format(agent="Simon"), headers={"Authorization": "Bearer se_x"})
    response = client.get(SNAPSHOTS.format(agent="Simon"),
                          headers={"Authorization": "Bearer se_y"})
    assert is_problem(response, 429) and int(response.headers["Retry-After"]) >= 1
    assert client.get(SNAPSHOTS.format(agent="Simon"), headers=good).status_code == 200


@pytest.mark.parametrize("authorization", [None, "Bearer", "Bearer   ", "Basic abc"])
def test_a_missing_key_is_a_401_even_from_a_throttled_address(client, published,
                                                              authorization):
    """Only wrong keys are throttled: a request with no key guessed nothing."""
    for _ in range(store.throttling.FREE_FAILURES + 1):
        client.get(SNAPSHOTS.format(agent="Simon"), headers={"Authorization": "Bearer se_x"})
    headers = {"Authorization": authorization} if authorization else {}
    missing = client.get(SNAPSHOTS.format(agent="Simon"), headers=headers)
    assert is_problem(missing, 401) and "Retry-After" not in missing.headers
    assert missing.headers["WWW-Authenticate"].startswith("Bearer")


def test_missing_keys_are_not_counted_as_failures(client, published):
    for _ in range(store.throttling.FREE_FAILURES + 3):
        assert client.get(SNAPSHOTS.format(agent="Simon")).status_code == 401
    wrong = client.get(SNAPSHOTS.format(agent="Simon"), headers={"Authorization": "Bearer se_x"})
    assert is_problem(wrong, 401)


def test_the_openapi_document_is_made_from_the_models(client, published):
    from webapp.web.api_schema import AssembleAnswer, AssembleRequest

    spec = client.get("/api/v1/openapi.json").get_json()
    assert spec["openapi"].startswith("3.1")
    schemas = spec["components"]["schemas"]
    assert schemas["AssembleRequest"]["properties"].keys() == (
        AssembleRequest.model_json_schema()["properties"].keys())
    assert schemas["AssembleAnswer"]["required"] == AssembleAnswer.model_json_schema()[
        "required"]
    assert {"/api/v1/agents/{agent}/snapshots", "/api/v1/agents/{agent}/snapshots/{ref}",
            "/api/v1/agents/{agent}/assemble"} <= spec["paths"].keys()
