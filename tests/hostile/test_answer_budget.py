"""Every route's answer against what was sent and saved, over the hostile corpus of
`benchmarks/hostile.py` (a value written 200 times, 40,000 unknown names, 30,000 results
by args, an exponential chain of references, and forms that ask for as much).

The bound, for each request:

    answer bytes <= ANSWER_FACTOR * (request bytes + saved characters) + CHROME

The request is its URL, headers and body. What is saved is, for a GET of a saved shape,
the shape's workspace as a bundle (what its authors typed); for a POST, every character of
every text column of the database (what a page may show, revisions and log entries
included). `CHROME` is the page around the content (the biggest demo page is a tenth of
it) plus what the expansion budget lets any workspace make (`EXPANSION_FLOOR` characters
of document, which the preview windows). The routes are read from the URL map
(`tests/web/routes.py`), as the sweep does; no time is asserted (the worst-case table of
`make bench` has the figures).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from sqlalchemy import JSON, String, Text, cast, func, select

from benchmarks.hostile import FORMS, TOKEN, path_values, shapes
from tests.support.pages import HTMX
from tests.support.routes import route_url, routes, seed
from webapp import store
from webapp.pipeline import EXPANSION_FLOOR, LISTED_PER_KIND, assemble, bundle_text
from webapp.schema import db, models
from webapp.web.forms import LINK_MESSAGE_CHARS

ANSWER_FACTOR = 10
CHROME = EXPANSION_FLOOR + 1_000_000


@pytest.fixture
def hostile(app) -> dict[str, dict[str, str]]:
    """Each shape of the corpus saved as an agent of its name; the path arguments of each,
    and its size as a bundle (what its authors typed) under `saved`."""
    found = {}
    with app.app_context():
        session = db.get_session()
        for name, workspace in shapes().items():
            store.import_bundle(session, workspace)
            found[name] = path_values(workspace) | {
                "saved": str(len(bundle_text(store.export_bundle(session, name))))}
    return found


def saved_chars(app: Any) -> int:
    """Every character of every text column in the database."""
    total = 0
    with app.app_context():
        session = db.get_session()
        for table in models.Base.metadata.sorted_tables:
            columns = [func.coalesce(func.length(cast(column, Text)), 0)
                       for column in table.columns
                       if isinstance(column.type, String | Text | JSON)]
            if columns:
                total += session.scalar(select(func.coalesce(func.sum(sum(columns[1:],
                                                                          columns[0])), 0)))
    return total


def request_bytes(url: str, body: bytes, headers: dict[str, str]) -> int:
    return len(url) + len(body) + sum(len(k) + len(v) + 4 for k, v in headers.items())


def removes(rule: Any) -> bool:
    """Whether a route removes what the routes after it would show (sorted last)."""
    return rule.rule.endswith(("/delete", "/purge", "/logout"))


def check(response: Any, what: str, sent: int, saved: int) -> None:
    """Below 500, no traceback, and within `ANSWER_FACTOR * (sent + saved) + CHROME`."""
    body = response.get_data()
    assert response.status_code < 500, f"{what}: {response.status_code}"
    assert b"Traceback" not in body, what
    budget = ANSWER_FACTOR * (sent + saved) + CHROME
    assert len(body) <= budget, f"{what}: {len(body):,} bytes, budget {budget:,}"


@pytest.mark.parametrize("fragment", [False, True], ids=["page", "fragment"])
@pytest.mark.parametrize("shape", list(shapes()))
def test_every_get_route_of_a_hostile_workspace_is_within_budget(app, client, hostile,
                                                                 shape, fragment):
    headers = {"HX-Request": "true"} if fragment else {}
    values = hostile[shape]
    for rule in routes(app, "GET"):
        url = route_url(rule, values)
        response = client.get(url, headers=headers)
        check(response, f"GET {url}", request_bytes(url, b"", headers), int(values["saved"]))


@pytest.mark.parametrize("label", list(FORMS))
def test_every_post_route_with_a_form_that_asks_for_a_lot_is_within_budget(app, client,
                                                                           label):
    demo = seed(app)
    for rule in sorted(routes(app, "POST"), key=removes):
        url = route_url(rule, demo)
        form = FORMS[label] | {"csrf_token": TOKEN}
        with client.session_transaction() as session:  # a sign-out ends the session
            session["csrf_token"] = TOKEN
        response = client.post(url, data=form, headers={"HX-Request": "true"})
        sent = request_bytes(url, urlencode(form).encode(), {"HX-Request": "true"})
        check(response, f"POST {url} {label}", sent, saved_chars(app))


def test_a_value_written_200_times_is_left_empty_with_one_value_budget_error():
    context = assemble(shapes()["values"], "dm")
    budget = [d for d in context.diagnostics if d.code == "value-budget"]
    assert {d.skill for d in budget} == {"values", "message"}
    assert all("(200 times, first at line 1)" in d.message for d in budget)
    assert len(context.document) < 3 * EXPANSION_FLOOR


def test_forty_thousand_unknown_names_list_a_hundred_and_count_the_rest():
    context = assemble(shapes()["unknown"], "dm")
    unknown = [d for d in context.diagnostics if d.code == "unknown-variable"]
    assert len(unknown) == LISTED_PER_KIND
    notice = [d for d in context.diagnostics if d.code == "output-budget"]
    assert [d.message for d in notice] == [
        f"{40_000 - LISTED_PER_KIND:,} more different `unknown-variable` problems are not "
        f"listed (the first {LISTED_PER_KIND} are)"]


def test_the_tool_page_previews_the_first_results_by_args_and_counts_the_rest(app, client,
                                                                              hostile):
    page = client.get("/agents/flood/tools/flood").get_data(as_text=True)
    assert page.count('class="message-card output-card"') == 1 + LISTED_PER_KIND
    assert f"{30_000 - LISTED_PER_KIND:,} more results by args" in page


@pytest.mark.parametrize("length, carried", [(LINK_MESSAGE_CHARS, True),
                                             (LINK_MESSAGE_CHARS + 1, False)])
def test_links_carry_a_message_override_only_while_it_is_short(simon, client, length, carried):
    message = "m" * length
    response = client.get("/agents/Simon/preview", query_string={"message": message},
                          headers=HTMX)
    assert response.status_code == 200
    html = response.data.decode()
    assert (f"message={message}" in html) is carried
    # The page shows the override it was asked for, in the picker, once.
    assert html.count(message) >= 1
