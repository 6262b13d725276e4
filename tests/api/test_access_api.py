"""The API is outside the session-based access table: a key is asked for in the local mode
too, from any machine and host name, with no CSRF token and no cookie set."""

from __future__ import annotations

import pytest

from webapp import store
from webapp.schema import db

SNAPSHOTS = "/api/v1/agents/Simon/snapshots"


def test_in_the_local_mode_another_machine_with_a_key_is_answered(app, published, token):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "203.0.113.5"
    headers = {**token("read", "assemble"), "Host": "agents.example.org"}
    listed = client.get(SNAPSHOTS, headers=headers)
    assert listed.status_code == 200 and "Set-Cookie" not in listed.headers
    turn = client.post("/api/v1/agents/Simon/assemble", json={}, headers=headers)
    assert turn.status_code == 200 and "Set-Cookie" not in turn.headers


def test_in_the_local_mode_this_machine_needs_a_key_too(client, published):
    response = client.get(SNAPSHOTS)
    assert response.status_code == 401 and response.mimetype == "application/problem+json"


def test_with_accounts_a_key_is_enough_and_a_session_is_not(app, client, published, token):
    with app.app_context():
        store.accounts.create_user(db.get_session(), store.NewUser(
            "boss", "admin", "a long password!"))
    assert client.get(SNAPSHOTS, headers=token("read")).status_code == 200
    assert client.get(SNAPSHOTS).status_code == 401


def test_the_openapi_document_needs_no_key(client, published):
    assert client.get("/api/v1/openapi.json").status_code == 200


def test_a_turn_needs_no_csrf_token_even_from_a_page_elsewhere(client, published, token):
    """The key is the credential: a browser never sends it on its own, and a page elsewhere
    cannot read the answer (no CORS), so neither the token nor the origin is checked."""
    for origin in ({"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://elsewhere.example"}):
        response = client.post("/api/v1/agents/Simon/assemble", json={},
                               headers={**token("assemble"), **origin})
        assert response.status_code == 200 and "Access-Control-Allow-Origin" not in (
            response.headers)


@pytest.mark.parametrize(("method", "path", "status"), [
    ("DELETE", "/api/v1/agents/Simon/snapshots", 405),
    ("GET", "/api/v1/agents/Simon/assemble", 405),
    ("GET", "/api/v1/nothing/here", 404),
    ("GET", "/api/v1/agents/Simon/snapshots/", 404)])
def test_an_address_or_method_the_api_lacks_is_a_problem_too(client, published, method, path,
                                                              status):
    response = client.open(path, method=method)
    assert response.status_code == status
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["detail"]
    assert ("Allow" in response.headers) == (status == 405)
