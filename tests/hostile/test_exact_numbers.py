"""Numbers in tool results, bindings, scenarios and bundles are kept exactly as written,
however long or large: parsed, stored (SQLite and PostgreSQL), rendered, edited and
exported without a 500, a refusal or a changed digit."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import text as text_sql

from tests.support.pages import HTMX
from webapp import store
from webapp.pipeline import (
    Agent,
    JsonNumber,
    Scenario,
    Skill,
    Tool,
    Variable,
    Workspace,
    assemble,
    dumps_json,
    loads_json,
    parse_json,
)
from webapp.schema import db

LONG = "9" * 5000
NEGATIVE = "-" + "1234567890" * 600
HUGE_FLOAT = "1e999"
TOOL_JSON = (f'{{"success": true, "content": {{"n": {LONG}, "m": {NEGATIVE}, '
             f'"f": {HUGE_FLOAT}, "small": 12, "x": 0.5}}}}')


def test_long_and_huge_numbers_parse_as_their_text():
    value = parse_json(TOOL_JSON)
    content = value["content"]
    assert content["n"] == JsonNumber(LONG) and content["m"] == JsonNumber(NEGATIVE)
    assert content["f"] == JsonNumber(HUGE_FLOAT)
    assert content["small"] == 12 and content["x"] == 0.5  # ordinary numbers stay numbers


def test_they_are_written_back_exactly():
    assert dumps_json(loads_json(TOOL_JSON)) == TOOL_JSON
    assert json.loads(dumps_json([loads_json(LONG)]), parse_int=str) == [LONG]


class Number(str):
    """A JSON number, generated as its text."""


NUMBERS = (st.integers(min_value=-10**40, max_value=10**40).map(str)
           | st.sampled_from([LONG, NEGATIVE, HUGE_FLOAT, "-1E+400", "1.5e-999", "0.1"])
           ).map(Number)


def json_text_of(node) -> str:
    if isinstance(node, Number):
        return str(node)
    if isinstance(node, list):
        return "[" + ", ".join(json_text_of(item) for item in node) + "]"
    if isinstance(node, dict):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {json_text_of(v)}"
                               for k, v in node.items()) + "}"
    return json.dumps(node, ensure_ascii=False)


@given(st.recursive(
    st.none() | st.booleans() | st.text(max_size=5) | NUMBERS,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=12))
def test_any_json_round_trips_text_for_text(shape):
    """Read and written back (with `json.dumps`'s separators), any JSON is the same text."""
    text = json_text_of(shape)
    assert dumps_json(loads_json(text)) == text


def test_the_pipeline_renders_them_digit_for_digit():
    workspace = Workspace(
        agent=Agent(name="A"),
        skills=(Skill("s", "system:\n{{lookup}}\n\n{{n}}\n", triggers=("dm",)),),
        tools=(Tool("lookup", result=parse_json(TOOL_JSON)),),
        variables=(Variable("n", tool="lookup", path="n", format="text"),),
        scenarios=(Scenario("sc"),))
    context = assemble(workspace)
    assert context.document.count(LONG) == 2
    assert NEGATIVE in context.document and HUGE_FLOAT in context.document
    assert not [d for d in context.diagnostics if d.severity == "error"]


def test_the_database_keeps_them(session):
    """Stored in a JSON column and read back: the same numbers, on SQLite and PostgreSQL."""
    store.create_agent(session, "numbers")
    store.create_tool(session, "numbers", "lookup", result=parse_json(TOOL_JSON))
    store.create_scenario(session, "numbers", "big", trigger="dm",
                          event=parse_json(f'{{"kind": {LONG}, "at": {HUGE_FLOAT}}}'))
    session.expire_all()
    assert dumps_json(store.get_tool(session, "numbers", "lookup").result) == TOOL_JSON
    event = store.get_scenario(session, "numbers", "big").event
    assert event == {"kind": JsonNumber(LONG), "at": JsonNumber(HUGE_FLOAT)}
    exported = json.dumps(store.export_bundle(session, "numbers"), default=str)
    assert exported.count(LONG) == 2


@pytest.mark.parametrize("text", ["12345678901234567890", "-9223372036854775809", LONG,
                                  HUGE_FLOAT, "0.1", "7"],
                         ids=["20 digits", "below int64", "5000 digits", "1e999", "0.1", "7"])
def test_a_bare_number_is_kept_by_the_database(session, text):
    """SQLite gives a JSON column numeric affinity, which turned a bare number into a REAL
    (a 20-digit integer lost digits, 5000 nines became infinity): it is stored as it is."""
    store.create_agent(session, "bare")
    store.create_tool(session, "bare", "n", result=parse_json(text))
    session.expire_all()
    assert dumps_json(store.get_tool(session, "bare", "n").result) == text


def test_a_number_sqlite_already_converted_still_reads(sqlite_database_url):
    """Rows written before bare numbers were bound as bytes hold a REAL; one that became
    infinite reads as 1e999, so the export is still JSON. SQLite's column affinity alone
    did this, so the test runs on SQLite in every pass."""
    engine = db.make_engine(sqlite_database_url)
    db.upgrade(engine)
    with db.make_sessionmaker(engine)() as session:
        _read_converted_numbers(session)
    engine.dispose()


def _read_converted_numbers(session) -> None:
    store.create_agent(session, "legacy")
    store.create_tool(session, "legacy", "inf", result=1)
    store.create_tool(session, "legacy", "real", result=1)
    session.execute(text_sql("UPDATE tools SET result = 1e999 WHERE name = 'inf'"))
    session.execute(text_sql("UPDATE tools SET result = 1.5 WHERE name = 'real'"))
    session.commit()
    session.expire_all()
    assert store.get_tool(session, "legacy", "inf").result == JsonNumber("1e999")
    assert store.get_tool(session, "legacy", "real").result == 1.5


def test_a_tool_form_saves_shows_and_exports_them(client, simon, csrf, app):
    form = {"csrf_token": csrf, "name": "big", "description": "", "result": TOOL_JSON,
            "results_by_args": f'[{{"args": {{"id": {LONG}}}, "result": {HUGE_FLOAT}}}]'}
    check = client.post("/agents/Simon/tool-preview", data=form, headers=HTMX)
    assert check.status_code == 200 and LONG in check.data.decode()
    saved = client.post("/agents/Simon/tools", data=form)
    assert saved.status_code == 303
    page = client.get("/agents/Simon/tools/big").data.decode()
    assert LONG in page and NEGATIVE in page and HUGE_FLOAT in page
    # Saving the form as shown changes nothing.
    with app.app_context():
        before = dumps_json(store.get_tool(db.get_session(), "Simon", "big").result)
    assert before == TOOL_JSON
    bundle = client.get("/agents/Simon/bundle").data.decode()
    assert bundle.count(LONG) == 2 and HUGE_FLOAT in bundle
    assert f'"id": {LONG}' in bundle  # a number still, not a quoted string


@pytest.mark.parametrize("body", [
    '{"version": 1, "layer": 1e999, "content": "x"}',
    '{"version": ' + LONG + ', "content": "x"}',
])
def test_a_huge_number_where_an_integer_is_stored_is_a_422(client, simon, csrf, body):
    response = client.post("/agents/Simon/skills/chat", data=body,
                           headers={"X-CSRFToken": csrf, "Content-Type": "application/json"})
    assert response.status_code == 422
    assert LONG not in response.data.decode()
