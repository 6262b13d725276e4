"""Every route, as page and as fragment, against the hostile corpus: never a 5xx, never a
traceback, a bounded answer.

The routes are read from the app's URL map, so a new route is swept without being listed
here; its path arguments are filled from the Relay Watch demo agent. No time is asserted
(a loaded machine would make it lie): the time of the slowest route is a figure of the
benchmarks' worst-case table (`benchmarks/hostile.py`); `test_answer_budget` bounds the
answers against what was sent and saved.
"""

from __future__ import annotations

import pytest

from tests.support.routes import route_url, routes, seed
from tests.support.sweep import VALUES, check_answer

TOKEN = "sweep-csrf-token"
#: Every field name a form of the app reads.
FIELDS = ("content", "name", "d_tag", "layer", "triggers", "enabled", "version", "scenario",
          "trigger", "message", "provider", "description", "result", "results_by_args", "tool",
          "args", "result_field", "path", "format", "limit", "history", "event", "original",
          "direction", "force", "expected_version", "bundle_text", "agent_name", "replace",
          "agent", "current", "page", "from", "to", "note", "expected_latest")

#: JSON bodies that break naive parsing.
JSON_BODIES: dict[str, str] = {
    "deep": '{"content": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "inf": '{"layer": 1e999, "version": 1e400, "content": "x"}',
    "digits": '{"version": ' + "9" * 5000 + ', "limit": ' + "9" * 5000 + "}",
    "not-object": "[1, 2, 3]",
}


@pytest.fixture
def demo(app) -> dict[str, str]:
    """Relay Watch with a log entry and a snapshot; the path arguments to use."""
    return seed(app)


@pytest.mark.parametrize("fragment", [False, True], ids=["page", "fragment"])
def test_every_get_route_with_hostile_query_arguments(app, client, demo, fragment):
    headers = {"HX-Request": "true"} if fragment else {}
    for rule in routes(app, "GET"):
        url = route_url(rule, demo)
        for label, value in VALUES.items():
            args = {key: value for key in ("scenario", "trigger", "message", "provider", "page",
                                           "from", "to", "a", "b", "a_trigger", "b_trigger",
                                           "agent")}
            response = client.get(url, query_string=args, headers=headers)
            check_answer(response, f"GET {url} {label}")


@pytest.mark.parametrize("fragment", [False, True], ids=["page", "fragment"])
def test_every_post_route_with_hostile_form_fields(app, client, demo, fragment):
    with client.session_transaction() as session:
        session["csrf_token"] = TOKEN
    headers = {"HX-Request": "true"} if fragment else {}
    for rule in routes(app, "POST"):
        url = route_url(rule, demo)
        for label, value in VALUES.items():
            form = {key: value for key in FIELDS} | {"csrf_token": TOKEN}
            response = client.post(url, data=form, headers=headers)
            check_answer(response, f"POST {url} {label}")


def test_every_post_route_with_hostile_json_bodies(app, client, demo):
    with client.session_transaction() as session:
        session["csrf_token"] = TOKEN
    headers = {"HX-Request": "true", "X-CSRFToken": TOKEN, "Content-Type": "application/json"}
    for rule in routes(app, "POST"):
        url = route_url(rule, demo)
        for label, body in JSON_BODIES.items():
            response = client.post(url, data=body, headers=headers)
            check_answer(response, f"POST {url} json {label}")


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
def test_other_methods_are_405(app, client, demo, method):
    for rule in routes(app, "GET"):
        url = route_url(rule, demo)
        response = client.open(url, method=method)
        assert response.status_code == 405, f"{method} {url}: {response.status_code}"

