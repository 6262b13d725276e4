"""The context log: the list, one entry, the download and deleting (asked first) as pages."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.support.pages import HTMX, executable_markup, fragment_root, is_page
from tests.support.xss import CORPUS, xss_bundle
from webapp import store
from webapp.pipeline import Context, Diagnostic, assemble, format_log_entry, load_bundle, parse_log
from webapp.schema import db

LOG = "/agents/Simon/log"


def make_context(document: str, *, scenario: str | None = "admin asks about mentions",
                 trigger: str = "dm", diagnostics: tuple[Diagnostic, ...] = (),
                 log_entry: str | None = None) -> Context:
    """A context as `assemble` returns one, with the fields the log stores: one system
    message holding `document`, and its log-entry text (`log_entry` to store another)."""
    messages = [{"role": "system", "content": document.removesuffix("\n")}]
    whole = f"system:\n{document}"
    counts = {d.severity: sum(e.severity == d.severity for e in diagnostics)
              for d in diagnostics}
    entry = format_log_entry(whole, agent="Simon", scenario=scenario, trigger=trigger,
                             counts=counts, messages=messages, time=TIME)
    return Context(document=whole, messages=messages, diagnostics=list(diagnostics),
                   origins=(), log_entry=entry if log_entry is None else log_entry,
                   scenario=scenario, trigger=trigger)


TIME = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
STAMP = "2026-12-01T09:30:00Z"


@pytest.fixture
def log(app):
    """Append a context to an agent's log: `log(agent, context)` -> the entry's id."""

    def append(agent: str, context: Context) -> int:
        with app.app_context():
            return store.log_context(db.get_session(), agent, context).id

    return append


@pytest.fixture
def three(simon, log) -> list[int]:
    """Three entries in Simon's log: the first has an error and a warning; returns the ids."""
    problems = (Diagnostic("error", "reference-cycle", "a cycle", "chat", 2),
                Diagnostic("warning", "unknown-variable", "no such thing", "chat", 3))
    return [log("Simon", make_context("# First\n", diagnostics=problems)),
            log("Simon", make_context("# Second\n", scenario="other", trigger="cron")),
            log("Simon", make_context("# Third\n"))]


def entry_count(app, agent: str = "Simon") -> int:
    with app.app_context():
        return len(store.list_log(db.get_session(), agent, limit=None))


# -- the list


def test_list_page_newest_first_with_scenario_trigger_time_and_problems(client, three):
    response = client.get(LOG)
    assert response.status_code == 200 and is_page(response)
    assert "HX-Request" in response.headers["Vary"]
    html = response.data.decode()
    first, second, third = three
    assert html.index(f">#{third}<") < html.index(f">#{second}<") < html.index(f">#{first}<")
    assert "other" in html and "cron" in html and "admin asks about mentions" in html
    assert "1 error</span>" in html and "1 warning</span>" in html
    assert " UTC</time>" in html
    assert 'href="/agents/Simon/log/context.log.md"' in html


def test_list_fragment(client, three):
    response = client.get(LOG, headers=HTMX)
    assert not is_page(response)
    assert fragment_root(response).startswith(b'<section id="log"')


def test_empty_log(client, simon):
    html = client.get(LOG).data.decode()
    assert "No entries" in html and "Log tab" in html


def test_filter_by_scenario(client, three):
    html = client.get(f"{LOG}?scenario=other", headers=HTMX).data.decode()
    assert f">#{three[1]}<" in html
    assert f">#{three[0]}<" not in html and f">#{three[2]}<" not in html
    assert '<option value="other" selected>' in html


def test_pages_of_entries(client, three, monkeypatch):
    from webapp.web import log

    monkeypatch.setattr(log, "PAGE_SIZE", 2)
    html = client.get(LOG).data.decode()
    assert f">#{three[2]}<" in html and f">#{three[1]}<" in html and f">#{three[0]}<" not in html
    assert 'href="/agents/Simon/log?page=2"' in html and "Older" in html
    html = client.get(f"{LOG}?page=2").data.decode()
    assert f">#{three[0]}<" in html and "Newer" in html and "Older" not in html


@pytest.mark.parametrize("page", ["0", "x", "-1"])
def test_bad_page_number_is_422(client, three, page):
    response = client.get(f"{LOG}?page={page}")
    assert response.status_code == 422
    assert b"page: must be" in response.data


def test_list_of_unknown_agent_is_404(client, simon):
    assert client.get("/agents/Nobody/log").status_code == 404
    assert client.get("/agents/Nobody/log/context.log.md").status_code == 404


def test_log_appended_from_the_editor_shows_up(client, simon, csrf):
    # A draft that writes no user text: the incoming message becomes it (one info).
    client.post("/agents/Simon/skills/chat/log", data={
        "csrf_token": csrf, "enabled": "1", "triggers": "dm", "content": "system:\nNo user text."})
    html = client.get(LOG).data.decode()
    assert "admin asks about mentions" in html and "1 info</span>" in html


# -- one entry


def test_entry_page_renders_messages_and_highlights_the_source(client, three):
    response = client.get(f"{LOG}/{three[0]}")
    assert response.status_code == 200 and is_page(response)
    html = response.data.decode()
    assert "<h1>First</h1>" in html                       # rendered markdown
    assert '<table class="source highlight">' in html      # highlighted source
    assert f"context-log: {STAMP}" in html                 # the stored entry text
    assert html.index("reference-cycle") < html.index("unknown-variable")  # errors first
    assert 'href="/agents/Simon/log/1/delete"' in html


def test_entry_fragment(client, three):
    response = client.get(f"{LOG}/{three[0]}", headers=HTMX)
    assert fragment_root(response).startswith(b'<section id="log-record"')


def test_missing_entry_is_404(client, three):
    assert client.get(f"{LOG}/999").status_code == 404
    assert client.get(f"{LOG}/999/delete").status_code == 404
    assert client.get(f"{LOG}/999", headers=HTMX).data.lstrip().startswith(b'<section id="error"')


def test_another_agents_entry_is_404(app, client, three):
    with app.app_context():
        store.create_agent(db.get_session(), "Other")
    assert client.get(f"/agents/Other/log/{three[0]}").status_code == 404


# -- the download


def test_download_is_every_entry_oldest_first_separated_by_a_blank_line(client, three):
    response = client.get(f"{LOG}/context.log.md")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"] == "attachment; filename=context.log.md"
    assert response.headers["Content-Type"] == "text/markdown; charset=utf-8"
    text = response.data.decode()
    entries = parse_log(text)
    assert [e.messages[0]["content"] for e in entries] == ["# First", "# Second", "# Third"]
    assert [e.time for e in entries] == [STAMP] * 3
    assert text.count(f"<!-- context-log: {STAMP} · agent Simon · ") == 3
    assert text.endswith("\nsystem:\n# Third\n") and "# First\n\n<!-- " in text


def test_download_of_entries_without_a_final_newline_or_stored_text(client, simon, log):
    log("Simon", make_context("no newline"))
    log("Simon", make_context("# Rebuilt\n", log_entry=""))
    text = client.get(f"{LOG}/context.log.md").data.decode()
    first, second = text.split("\n\n", 1)
    assert first.startswith(f"<!-- context-log: {STAMP} ")
    assert first.endswith("-->\nsystem:\nno newline")
    assert second.startswith("<!-- context-log: ") and "· agent Simon ·" in second
    assert second.endswith("-->\nsystem:\n# Rebuilt\n")


def test_download_of_an_empty_log(client, simon):
    response = client.get(f"{LOG}/context.log.md")
    assert response.status_code == 200 and response.data == b""


# -- deleting


def test_delete_asks_first_without_javascript(app, client, three):
    response = client.get(f"{LOG}/{three[0]}/delete")
    assert response.status_code == 200 and is_page(response)
    html = response.data.decode()
    assert f"Delete context-log entry #{three[0]}?" in html
    assert f'action="/agents/Simon/log/{three[0]}/delete"' in html and 'name="csrf_token"' in html
    assert entry_count(app) == 3


def test_delete_confirm_fragment(client, three):
    response = client.get(f"{LOG}/{three[0]}/delete", headers=HTMX)
    assert fragment_root(response).startswith(b'<section id="log-delete"')


def test_list_links_to_the_confirm_page_and_confirms_with_htmx(client, three):
    html = client.get(LOG).data.decode()
    assert f'href="/agents/Simon/log/{three[0]}/delete"' in html
    assert f'hx-post="/agents/Simon/log/{three[0]}/delete"' in html
    assert f'hx-confirm="Delete context-log entry #{three[0]}?' in html


def test_delete_redirects_back_to_the_list(app, client, three, csrf):
    response = client.post(f"{LOG}/{three[0]}/delete?scenario=admin+asks+about+mentions",
                           data={"csrf_token": csrf})
    assert response.status_code == 303
    assert response.headers["Location"] == "/agents/Simon/log?scenario=admin+asks+about+mentions"
    assert entry_count(app) == 2
    html = client.get(LOG).data.decode()
    assert f"Deleted context-log entry #{three[0]}." in html
    assert client.get(f"{LOG}/{three[0]}").status_code == 404


def test_delete_with_htmx_answers_the_list(app, client, three):
    with client.session_transaction() as session:
        session["csrf_token"] = "t"
    response = client.post(f"{LOG}/{three[0]}/delete?scenario=admin+asks+about+mentions",
                           headers={**HTMX, "X-CSRFToken": "t"})
    assert response.status_code == 200
    assert fragment_root(response).startswith(b'<section id="log"')
    html = response.data.decode()
    assert f"Deleted context-log entry #{three[0]}." in html
    assert f">#{three[2]}<" in html and f">#{three[0]}<" not in html
    assert f">#{three[1]}<" not in html  # still filtered by scenario
    assert entry_count(app) == 2


def test_delete_without_csrf_token_changes_nothing(app, client, three):
    response = client.post(f"{LOG}/{three[0]}/delete")
    assert response.status_code == 400
    assert b"security token" in response.data
    assert entry_count(app) == 3


def test_delete_of_missing_entry_is_404(client, three, csrf):
    assert client.post(f"{LOG}/999/delete", data={"csrf_token": csrf}).status_code == 404


# -- untrusted text


@pytest.fixture
def mallory_log(app, log) -> int:
    """Mallory's XSS workspace assembled and logged, plus an entry of raw payloads."""
    with app.app_context():
        session = db.get_session()
        store.import_bundle(session, load_bundle(xss_bundle()))
        context = assemble(store.load_workspace(session, "Mallory"), "<b>evil scenario</b>")
        store.log_context(session, "Mallory", context)
    problem = Diagnostic("warning", "<script>alert('code')</script>", CORPUS,
                         "<img src=x onerror=1>")
    return log("Mallory", make_context(CORPUS, scenario="<script>alert('sc')</script>",
                                       trigger="<img src=x onerror=alert(1)>",
                                       diagnostics=(problem,)))


@pytest.mark.parametrize("path", ["", "/1", "/2", "/2/delete"])
@pytest.mark.parametrize("headers", [{}, HTMX])
def test_xss_in_log_entries_reaches_nothing_executable(client, mallory_log, path, headers):
    response = client.get(f"/agents/Mallory/log{path}", headers=headers)
    assert response.status_code == 200
    html = response.data.decode()
    assert executable_markup(html) == []
    assert "&lt;script&gt;alert(" in html  # shown as text, not dropped


def test_download_is_the_text_as_stored(client, mallory_log):
    response = client.get("/agents/Mallory/log/context.log.md")
    assert CORPUS in response.data.decode()
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Content-Disposition"].startswith("attachment")


def test_a_published_entry_links_to_its_snapshot(app, client, simon):
    with app.app_context():
        session = db.get_session()
        store.publish(session, simon, "first", expected_latest=0, override="demo")
        entry = store.log_context(session, simon, make_context("Published.\n"),
                                  source=store.published_source(1))
        entry_id = entry.id
    link = f'published <a href="/agents/{simon}/snapshots/1">#1</a>'
    assert link in client.get(LOG).text
    assert link in client.get(f"{LOG}/{entry_id}").text
