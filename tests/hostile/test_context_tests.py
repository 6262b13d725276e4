"""Context tests come from other people (a bundle, a scenario form): a megabyte of them,
too many, catastrophic patterns and patterns too big for RE2 are a 4xx or a problem, and
a pattern runs in linear time over a megabyte of text."""

from __future__ import annotations

import json

import pytest

from tests.support.pipeline import fixture_bundle
from webapp import store
from webapp.pipeline import Expectation, assemble, load_bundle, run_expectations
from webapp.schema import db
from webapp.store import context_tests

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


@pytest.mark.parametrize("pattern", [".{0,999}Q", "[a-z]{1000}Q", "([a-z]{1,100}){9}Q"])
def test_a_pattern_whose_program_is_too_large_is_refused_when_saved(app, client, csrf, simon,
                                                                    pattern):
    """Each was seconds over one long line (RE2 past its DFA's memory takes the slow
    path): refused when the test is saved, with the reason."""
    response = client.post(f"/agents/{simon}/scenarios/{SCENARIO}", data={
        "csrf_token": csrf, "expect": json.dumps([{"regex": pattern}])})
    assert response.status_code == 422 and "is too costly a pattern" in response.text
    assert "at most 1,000" in response.text


def test_a_costly_search_runs_under_a_deadline_and_is_reported(sent_to_workers):
    """A pattern within the program limit can still be slow on one long line
    (`[a-z]{900}Q`: seconds over 200,000 letters): a search whose worst case is large runs
    in a worker under the `regex` deadline, and the test says it was not run to the end;
    a small one runs on the caller's thread."""
    line = "a" * 200_000
    workspace = load_bundle(fixture_bundle({"skills": [
        {"d_tag": "big", "content": f"system:\n{line}\n"}], "scenario": {"expect": [
            {"regex": "[a-z]{900}Q"}, {"regex": "^a+$", "name": "cheap"}]}}))
    slow, cheap = [r for r in context_tests.run(workspace).results if r.index is not None]
    assert not slow.passed and "took longer than its deadline" in slow.message
    assert cheap.passed
    assert sent_to_workers["regex"] == [("[a-z]{900}Q", context_tests_text(workspace))]


def context_tests_text(workspace) -> str:
    """The document the tests of `workspace`'s scenario search."""
    return assemble(workspace, "test").document
