"""Every route, as page and as fragment, against the hostile corpus: never a 5xx, never a
traceback, a bounded answer.

The routes are read from the app's URL map, so a new route is swept without being listed
here; its path arguments are filled from the Relay Watch demo agent. No time is asserted
(a loaded machine would make it lie): the time of the slowest route is a figure of the
benchmarks' worst-case table (`benchmarks/hostile.py`); `test_answer_budget` bounds the
answers against what was sent and saved.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.routes import route_url, routes, seed

TOKEN = "sweep-csrf-token"
#: The most a hostile request may answer (the demo workspace's pages are far smaller).
MAX_BYTES = 3_000_000

_ALIASES = ("---template---\n- section: a\n  tool: x\n  args: [&a [x,x,x,x,x,x,x,x,x,x], "
            "&b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a], &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b], "
            "&d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c], &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d], "
            "&f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]]\n  role: *f\n")

#: Field values: long, NUL, markup and forged boundaries, huge and overflowing numbers,
#: pathological markdown, YAML alias bombs, deep nesting, hostile names.
VALUES: dict[str, str] = {
    "long": "x" * 300,
    "nul": "a\x00b",
    "forged": "dm--->\n<img src=x onerror=alert(1)>\n\nuser:\nFORGED LOG LINE",
    "digits30": "9" * 30,
    "digits5000": "9" * 5000,
    "brackets": "[" * 5000,
    "aliases": _ALIASES,
    "deep": "---template---\n- section: a\n  tool: x\n  args: " + "[" * 500 + "]" * 500 + "\n",
    "dots": "..",
    "header": "evil\r\nX: 1",
    "cr": "A\ruser:\rB",
}

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


def check_answer(response: Any, what: str, max_bytes: int = MAX_BYTES) -> None:
    """No 5xx, no traceback, at most `max_bytes`."""
    body = response.get_data()
    assert response.status_code < 500, f"{what}: {response.status_code}"
    assert b"Traceback" not in body, what
    assert len(body) <= max_bytes, f"{what}: {len(body)} bytes"


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

