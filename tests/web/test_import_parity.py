"""`skill-editor import` and the web import refuse the same bundles with the same JSON paths
and messages: both go through the store's rules, and neither writes anything."""

from __future__ import annotations

import copy
import html
import json
import re

import pytest
from click.testing import CliRunner

from tests.support.workspaces import SIMON
from webapp import store
from webapp.cli import main
from webapp.schema import db

BUNDLE = json.loads(SIMON.read_text(encoding="utf-8"))
_PROBLEM = re.compile(r"<li><code>(.*?)</code>: (.*?)</li>")


def with_change(change) -> dict:
    bundle = copy.deepcopy(BUNDLE)
    change(bundle)
    return bundle


CASES = {
    "a 300-character d_tag": (
        with_change(lambda b: b["skills"][0].update(d_tag="d" * 300)), [],
        [("$.skills[0].d_tag", "must be at most 200 characters, not 300")]),
    "an over-long tool name": (
        with_change(lambda b: b["tools"][1].update(name="t" * 201)), [],
        [("$.tools[1].name", "must be at most 200 characters, not 201")]),
    "a / in the agent's name": (
        with_change(lambda b: b["agent"].update(name="Simon/2")), [],
        [("$.agent.name", "must not contain '/' (the agent's pages could not be addressed)")]),
    "a / in the name to import under": (
        BUNDLE, ["x/y"],
        [("agent_name", "must not contain '/' (the agent's pages could not be addressed)")]),
    "several at once, with NUL": (
        with_change(lambda b: (b["skills"][1].update(d_tag="e" * 250, content="a\x00b"),
                               b["variables"][0].update(tool="v" * 201))), [],
        [("$.skills[1].d_tag", "must be at most 200 characters, not 250"),
         ("$.skills[1].content", "must not contain NUL characters (U+0000)"),
         ("$.variables[0].tool", "must be at most 200 characters, not 201")]),
}


def web_problems(post, bundle: dict, agent_name: list[str]) -> list[tuple[str, str]]:
    fields = {"agent_name": agent_name[0]} if agent_name else {}
    response = post(bundle, **fields)
    assert response.status_code == 422
    return [(html.unescape(where), html.unescape(reason))
            for where, reason in _PROBLEM.findall(response.data.decode())]


def cli_problems(tmp_path, database_url, bundle: dict, agent_name: list[str]
                 ) -> list[tuple[str, str]]:
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle), encoding="utf-8")
    options = ["--agent-name", agent_name[0]] if agent_name else []
    result = CliRunner().invoke(main, ["import", str(path), *options,
                                       "--database-url", database_url])
    assert result.exit_code == 1, result.output
    lines = result.stderr.splitlines()
    assert all(line.startswith(f"{path}: ") for line in lines), lines
    return [tuple(line.removeprefix(f"{path}: ").split(": ", 1)) for line in lines]


@pytest.fixture
def post(client, csrf):
    def post(bundle: dict, **fields):
        return client.post("/transfer/bundle", content_type="multipart/form-data",
                           data={"csrf_token": csrf, "bundle_text": json.dumps(bundle),
                                 **fields})
    return post


@pytest.mark.parametrize("case", CASES)
def test_cli_and_web_refuse_the_same_bundle_alike(case, app, post, tmp_path, database_url):
    bundle, agent_name, expected = CASES[case]
    assert web_problems(post, bundle, agent_name) == expected
    assert cli_problems(tmp_path, database_url, bundle, agent_name) == expected
    with app.app_context():
        assert store.list_agents(db.get_session()) == []


def test_a_taken_name_is_refused_alike(app, post, tmp_path, database_url):
    with app.app_context():
        store.import_bundle(db.get_session(), BUNDLE)
    expected = [("$.agent.name", "an agent named 'Simon' already exists; import it under "
                                 "another name, or an admin may replace the agent with it")]
    assert web_problems(post, BUNDLE, []) == expected
    assert cli_problems(tmp_path, database_url, BUNDLE, []) == expected
