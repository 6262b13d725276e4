"""Context tests come from other people (a bundle, a scenario form): a megabyte of them,
too many, catastrophic patterns and patterns too big for RE2 are a 4xx or a problem, and
a pattern runs in linear time over a megabyte of text."""

from __future__ import annotations

import json

from tests.support.pipeline import fixture_bundle
from webapp import db, store
from webapp.pipeline import Expectation, assemble, load_bundle, run_expectations

SCENARIO = "admin asks about mentions"


def test_a_megabyte_of_tests_in_the_form_is_a_413(client, csrf, simon):
    expect = json.dumps([{"contains": "x" * 1000}] * 1100)
    response = client.post(f"/agents/{simon}/scenarios/{SCENARIO}",
                           data={"csrf_token": csrf, "expect": expect})
    assert response.status_code == 413


def test_too_many_tests_and_bad_patterns_are_refused_with_their_place(app, client, csrf, simon):
    url = f"/agents/{simon}/scenarios/{SCENARIO}"
    many = client.post(url, data={"csrf_token": csrf,
                                  "expect": json.dumps([{"contains": "x"}] * 201)})
    assert many.status_code == 422 and "at most 200" in many.text
    huge = client.post(url, data={"csrf_token": csrf, "expect": json.dumps(
        [{"regex": "((((a{100}){100}){100}){100})"}])})
    assert huge.status_code == 422 and "is not a pattern RE2 accepts" in huge.text
    with app.app_context():
        assert store.get_scenario(db.get_session(), simon, SCENARIO).expect in (None, [])


def test_a_catastrophic_pattern_over_a_megabyte_is_linear():
    line = "a" * 1_000_000 + "!"
    workspace = load_bundle(fixture_bundle({"skills": [
        {"d_tag": "big", "content": f"system:\n{line}\n"}]}))
    context = assemble(workspace, "test")
    results = run_expectations(context, [
        Expectation("regex", r"(a+)+$", "nested"), Expectation("regex", r"(a|a)*b", "alt"),
        Expectation("regex", r"(.*a){20}", "counted")], scenario="test", count_tokens=len)
    assert [r.passed for r in results] == [False, False, True]
