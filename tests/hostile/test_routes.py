"""Hostile requests against the routes: numbers out of range, over-long and NUL text,
chunked bodies over the limit (and over an import's larger one), concurrent toggles, saves
that change nothing, agent names that cannot be addressed, and methods a route does not take.

Each asserts no 5xx, no traceback in the body, a bounded answer, the 4xx expected and
that nothing was saved.
"""

from __future__ import annotations

import http.client
import json
import re
import threading
from html.parser import HTMLParser
from urllib.parse import urlencode

import pytest
from sqlalchemy import insert as sql_insert
from werkzeug.datastructures import MultiDict
from werkzeug.serving import make_server

from tests.support.pages import HTMX, TOKEN
from webapp import store
from webapp.schema import db, models

EDITOR = "/agents/Simon/skills/identity"
JSON_HEADERS = {"X-CSRFToken": TOKEN, "Content-Type": "application/json"}
HUGE = "9" * 30


def clean(response, *statuses: int) -> None:
    """The answer is one of `statuses`, without a traceback, and not huge."""
    assert response.status_code in statuses, (response.status_code, response.data[:300])
    assert b"Traceback" not in response.data
    assert len(response.data) < 300_000


def version(app, agent: str = "Simon", d_tag: str = "identity") -> int:
    with app.app_context():
        return store.get_skill(db.get_session(), agent, d_tag).version


def revisions(app, agent: str = "Simon", d_tag: str = "identity") -> int:
    with app.app_context():
        return len(store.list_revisions(db.get_session(), agent, d_tag))


# -- 5. numbers


@pytest.mark.parametrize("body", [
    '{"version": 1, "layer": 1e999}', '{"version": 1e400}', '{"version": 1, "layer": NaN}',
    '{"version": 1, "layer": ' + "1" * 5000 + "}", "[" * 100_000,
    '{"version": 1, "layer": 100000000000000000000000000000}',
    '{"version": 100000000000000000000000000000, "content": "x"}',
    '{"version": 1, "content": "x"', '"just a string"'])
@pytest.mark.parametrize("suffix", ["", "/preview", "/log"])
def test_unreadable_or_out_of_range_json_numbers_are_422(app, client, simon, csrf, body,
                                                         suffix):
    response = client.post(EDITOR + suffix, data=body, headers=JSON_HEADERS)
    clean(response, 422)
    assert version(app) == 1


@pytest.mark.parametrize("suffix", ["", "/preview"])
def test_a_30_digit_form_version_is_422(app, client, simon, csrf, suffix):
    response = client.post(EDITOR + suffix, data={"csrf_token": csrf, "version": HUGE,
                                                  "d_tag": "identity", "content": "x"})
    clean(response, 422)
    assert version(app) == 1


@pytest.mark.parametrize("limit", [HUGE, "1000001", "-1", "1" * 5000])
def test_a_binding_limit_out_of_range_is_422(app, client, simon, csrf, limit):
    response = client.post("/agents/Simon/variables", data={
        "csrf_token": csrf, "name": "hostile", "tool": "message_current", "limit": limit})
    clean(response, 422)
    with app.app_context():
        assert "hostile" not in {v.name for v in store.list_variables(db.get_session(), "Simon")}


@pytest.mark.parametrize("page", [HUGE, "2147483648", "0", "1" * 5000])
def test_a_log_page_out_of_range_is_422(client, simon, page):
    clean(client.get(f"/agents/Simon/log?page={page}"), 422)


@pytest.mark.parametrize("number", [HUGE, "2147483648", "0"])
@pytest.mark.parametrize("path", [f"{EDITOR}/history/{{n}}", "/agents/Simon/log/{n}",
                                  "/agents/Simon/log/{n}/delete"])
def test_ids_no_row_can_have_are_404(client, simon, number, path):
    clean(client.get(path.format(n=number)), 404)


@pytest.mark.parametrize("path", [f"{EDITOR}/history/{HUGE}/restore",
                                  f"/agents/Simon/log/{HUGE}/delete"])
def test_posts_to_ids_no_row_can_have_are_404(client, simon, csrf, path):
    clean(client.post(path, data={"csrf_token": csrf, "expected_version": "1"}), 404)


def test_a_restore_from_a_huge_expected_version_is_422(app, client, simon, csrf):
    response = client.post(f"{EDITOR}/history/1/restore",
                           data={"csrf_token": csrf, "expected_version": HUGE})
    clean(response, 422)
    assert version(app) == 1


# -- 6. lengths and NUL


@pytest.mark.parametrize("field", ["d_tag", "name"])
def test_a_skill_field_over_200_characters_is_422(app, client, simon, skill_form, field):
    data = skill_form("x", **{field: "a" * 201})
    clean(client.post(EDITOR, data={**data, "d_tag": data["d_tag"] if field == "d_tag"
                                    else "identity"}), 422)
    assert version(app) == 1


@pytest.mark.parametrize("override", [{"trigger": "t" * 201}, {"trigger": "dm\x00"},
                                      {"message": "hello \x00 there"}])
@pytest.mark.parametrize("path", ["/agents/Simon/preview/log", f"{EDITOR}/log"])
def test_log_overrides_the_store_refuses_are_422(app, client, simon, skill_form, override,
                                                 path):
    data = skill_form("system:\nhello\n", d_tag="identity", **override)
    if "trigger" in override:
        # The draft has the trigger too: the editor's preview follows the skill being
        # edited, and a trigger that does not select it would not be used.
        data["triggers"] = override["trigger"]
    clean(client.post(path, data=data), 422)
    clean(client.post(path, data=data, headers=HTMX), 422)
    with app.app_context():
        assert store.list_log(db.get_session(), "Simon") == []


# -- 7. chunked bodies


@pytest.fixture
def server(app):
    """The app served by werkzeug on a free port of 127.0.0.1, in a thread."""
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_port
    httpd.shutdown()
    thread.join(5)


#: The host the test client makes its sessions at: a session serves only the host it was
#: made at, so the requests sent to the server by hand name it.
SESSION_HOST = "localhost"


def test_a_chunked_body_over_the_limit_is_413_and_nothing_is_saved(app, simon, server):
    client = app.test_client()
    with client.session_transaction() as session:
        session["csrf_token"] = TOKEN
    cookie = client.get_cookie("session").value
    content = "x" * (1536 * 1024)
    body = (f"csrf_token={TOKEN}&version=1&d_tag=identity&layer=1&enabled=1&content="
            + content).encode()
    connection = http.client.HTTPConnection("127.0.0.1", server, timeout=30)
    chunks = (body[i:i + 65536] for i in range(0, len(body), 65536))
    connection.request("POST", EDITOR, body=chunks, encode_chunked=True, headers={
        "Content-Type": "application/x-www-form-urlencoded", "Cookie": f"session={cookie}",
        "Host": SESSION_HOST})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    assert response.status == 413 and b"Traceback" not in data
    assert version(app) == 1


def test_a_small_chunked_body_is_read_whole(app, simon, server):
    client = app.test_client()
    with client.session_transaction() as session:
        session["csrf_token"] = TOKEN
    cookie = client.get_cookie("session").value
    body = f"csrf_token={TOKEN}&version=1&d_tag=identity&layer=1&enabled=1&content=hi".encode()
    connection = http.client.HTTPConnection("127.0.0.1", server, timeout=30)
    connection.request("POST", EDITOR, body=iter([body[:10], body[10:]]), encode_chunked=True,
                       headers={"Content-Type": "application/x-www-form-urlencoded",
                                "Cookie": f"session={cookie}", "Host": SESSION_HOST})
    response = connection.getresponse()
    response.read()
    connection.close()
    assert response.status == 303
    with app.app_context():
        assert store.get_skill(db.get_session(), "Simon", "identity").content == "hi"


def post_chunked(app, port: int, path: str, body: bytes, content_type: str) -> tuple[int, bytes]:
    """POST `body` in 64 KB chunks (no Content-Length) with the session's CSRF token."""
    client = app.test_client()
    with client.session_transaction() as session:
        session["csrf_token"] = TOKEN
    cookie = client.get_cookie("session").value
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    chunks = (body[i:i + 65536] for i in range(0, len(body), 65536))
    connection.request("POST", path, body=chunks, encode_chunked=True, headers={
        "Content-Type": content_type, "Cookie": f"session={cookie}", "Host": SESSION_HOST,
        "X-CSRFToken": TOKEN})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def chunked_bundle(skills: int) -> bytes:
    """A pasted bundle of `skills` skills of about 2 KB each, as a form body."""
    bundle = {"format": "skill-workspace/1", "agent": {"name": "Big"},
              "skills": [{"d_tag": f"s{i}", "content": f"system:\n{i} " + "x" * 2100}
                         for i in range(skills)]}
    return urlencode({"bundle_text": json.dumps(bundle)}).encode()


def test_a_chunked_import_over_one_megabyte_is_read_whole(app, server):
    body = chunked_bundle(700)
    assert len(body) > 1.4 * 1024 * 1024
    status, data = post_chunked(app, server, "/transfer/bundle", body,
                                "application/x-www-form-urlencoded")
    assert status == 303, data[:300]
    with app.app_context():
        assert len(store.list_skills(db.get_session(), "Big")) == 700


def test_a_chunked_import_over_the_import_limit_is_413(app, server):
    app.config["IMPORT_MAX_CONTENT_LENGTH"] = 1024 * 1024
    status, data = post_chunked(app, server, "/transfer/bundle", chunked_bundle(700),
                                "application/x-www-form-urlencoded")
    assert status == 413 and b"Traceback" not in data and b"1 MB at most" in data
    with app.app_context():
        assert store.list_agents(db.get_session()) == []


# -- 9. concurrent writes


def test_concurrent_toggles_never_answer_500(app, simon):
    threads, rounds = 8, 10
    barrier = threading.Barrier(threads)
    statuses: list[int] = []

    def toggler(index: int) -> None:
        client = app.test_client()
        with client.session_transaction() as session:
            session["csrf_token"] = TOKEN
        for round_ in range(rounds):
            barrier.wait(timeout=60)
            response = client.post(f"{EDITOR}/enabled", data={
                "csrf_token": TOKEN, "enabled": "1" if (index + round_) % 2 else ""})
            statuses.append(response.status_code)

    workers = [threading.Thread(target=toggler, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert len(statuses) == threads * rounds
    assert set(statuses) <= {303, 409}, sorted(set(statuses))


def test_a_conflict_on_any_write_is_409(app, client, simon, csrf, monkeypatch):
    def conflicting(*args, **kwargs):
        raise store.Conflict("identity", expected_version=1, current={"version": 2},
                             submitted={}, saved=store.skill_of(
                                 store.get_skill(db.get_session(), "Simon", "identity")))

    monkeypatch.setattr(store, "set_skill_enabled", conflicting)
    clean(client.post(f"{EDITOR}/enabled", data={"csrf_token": csrf, "enabled": "1"}), 409)


# -- 12. a save without a change changes nothing


class _FormFields(HTMLParser):
    """The fields a browser would submit from the form with id `form_id`."""

    def __init__(self, form_id: str):
        super().__init__(convert_charrefs=True)
        self.form_id, self.inside, self.fields = form_id, False, []
        self._textarea: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.inside = a.get("id") == self.form_id
        if not self.inside:
            return
        if tag == "input" and a.get("name"):
            if a.get("type") != "checkbox" or "checked" in a:
                self.fields.append((a["name"], a.get("value", "")))
        elif tag == "textarea":
            self._textarea, self._text = a["name"], []
        elif tag == "select":
            self._select = a["name"]
        elif tag == "option" and self._select and "selected" in a:
            self.fields.append((self._select, a["value"]))

    def handle_data(self, data):
        if self._textarea is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "textarea" and self._textarea is not None:
            text = "".join(self._text)
            text = text[1:] if text.startswith("\n") else text  # HTML drops the first newline
            # A browser submits a textarea's line ends as CRLF.
            self.fields.append((self._textarea, re.sub(r"\r\n|\r|\n", "\r\n", text)))
            self._textarea = None
        elif tag == "select":
            self._select = None


def browser_fields(html: bytes, form_id: str = "skill-form") -> list[tuple[str, str]]:
    parser = _FormFields(form_id)
    parser.feed(html.decode())
    return parser.fields


def test_saving_an_unchanged_form_changes_nothing(app, client, simon, csrf):
    bundle = store_bundle(app)
    skill = bundle["skills"][0]
    skill.update(content="\nA\ruser:\rB\r\n\n  indented\n", triggers=["cron, weekly", "dm"])
    bundle["agent"]["name"] = "Lines"
    with app.app_context():
        store.import_bundle(db.get_session(), bundle)
        saved = store.get_skill(db.get_session(), "Lines", skill["d_tag"])
        before = (saved.version, saved.content, list(saved.triggers), saved.name)
    assert before[1] == "\nA\nuser:\nB\n\n  indented\n"  # the line-end rule, on import
    url = f"/agents/Lines/skills/{skill['d_tag']}"
    fields = browser_fields(client.get(url).data)
    response = client.post(url, data=MultiDict(fields))
    assert response.status_code == 303
    with app.app_context():
        row = store.get_skill(db.get_session(), "Lines", skill["d_tag"])
        assert (row.version, row.content, list(row.triggers), row.name) == before
    assert revisions(app, "Lines", skill["d_tag"]) == 1


def store_bundle(app) -> dict:
    with app.app_context():
        return store.export_bundle(db.get_session(), "Simon")


def test_a_trigger_with_a_comma_survives_the_form(app, client, simon, skill_form):
    data = skill_form("x", d_tag="identity", triggers="cron, weekly\r\ndm\r\n")
    assert client.post(EDITOR, data=data).status_code == 303
    with app.app_context():
        assert store.get_skill(db.get_session(), "Simon", "identity").triggers == [
            "cron, weekly", "dm"]


# -- 13. agent names


@pytest.mark.parametrize("name", [".", "..", "evil\r\nX: 1", " padded", "padded ", "a/b",
                                  "tab\there", "a" * 201])
def test_agent_names_that_cannot_be_addressed_are_refused(app, client, simon, csrf, name):
    bundle = store_bundle(app)
    bundle["agent"]["name"] = name
    response = client.post("/transfer/bundle", data={"csrf_token": csrf,
                                                     "bundle_text": json.dumps(bundle)})
    clean(response, 422)
    with app.app_context():
        session = db.get_session()
        assert [a.name for a in store.list_agents(session)] == ["Simon"]
        with pytest.raises(store.ValidationError):
            store.create_agent(session, name)
        with pytest.raises(store.ValidationError):
            store.update_agent(session, "Simon", name=name)


def test_the_bundle_download_is_safe_for_any_stored_name(app, client):
    with app.app_context():
        session = db.get_session()
        session.execute(sql_insert(models.Agent).values(
            name="evil\r\nX: 1é", title="t", message_mode="grouped", max_array_items=8,
            history_labels={}))
        session.commit()
    response = client.get("/agents/evil%0D%0AX%3A%201%C3%A9/bundle")
    clean(response, 200)
    disposition = response.headers["Content-Disposition"]
    assert "\r" not in disposition and "\n" not in disposition and "X: 1" not in (
        response.headers.get("X", ""))


# -- 14. methods


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize("path", ["/", EDITOR, "/agents/Simon/log", "/transfer/bundle"])
def test_a_method_a_route_does_not_take_is_405(client, simon, method, path):
    clean(client.open(path, method=method), 405)
