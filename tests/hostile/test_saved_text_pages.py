"""A saved text of megabytes — a context-log entry, a skill version — is shown up to
`SHOWN_CHARS` on its page, the rest counted; the answer stays within a few times what
was saved (a two-megabyte logged document once gave a 35 MB page)."""

from __future__ import annotations

import pytest

from tests.support.pages import HTMX
from webapp import store
from webapp.pipeline import assemble
from webapp.schema import db
from webapp.views.shown_text import SHOWN_CHARS, shown_part

#: A document of two megabytes of short markdown lines.
BIG = "".join(f"- item *{i}* with `code` and [a link](https://example.com/{i})\n"
              for i in range(36_000))


@pytest.mark.parametrize("text, chars, shown, hidden", [
    ("short\n", 10, "short\n", 0),
    ("a\nb\nc\n", 2, "a\nb\n", 2),
    ("x" * 10, 4, "xxxx", 6),
    ("ab\n" + "y" * 5_000, 1, "ab\n", 5_000),
])
def test_shown_part_cuts_at_a_line_end_near_the_bound(text, chars, shown, hidden):
    assert shown_part(text, chars) == (shown, hidden)


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "fragment"])
def test_a_logged_document_of_megabytes_is_shown_in_part(app, client, simon, htmx):
    with app.app_context():
        session = db.get_session()
        workspace = store.load_workspace(session, "Simon")
        store.create_skill(session, "Simon", "big", content=BIG, triggers=("dm",))
        workspace = store.load_workspace(session, "Simon")
        entry = store.log_context(session, "Simon", assemble(workspace, "dm"))
        entry_id, document = entry.id, entry.document
    assert len(document) > len(BIG)
    response = client.get(f"/agents/Simon/log/{entry_id}", headers=HTMX if htmx else {})
    assert response.status_code == 200
    assert len(response.data) <= 4 * len(document)
    html = response.data.decode()
    assert "more characters of this message are not shown" in html
    assert "more characters are not shown: copy the entry to have them all" in html


def test_a_skill_version_of_megabytes_is_shown_in_part(app, client, simon):
    with app.app_context():
        store.create_skill(db.get_session(), "Simon", "big", content=BIG)
    response = client.get("/agents/Simon/skills/big/history/1")
    assert response.status_code == 200
    assert len(response.data) <= 4 * len(BIG)
    assert "more characters are not shown: copy the text to have them all" in \
        response.data.decode()
    assert SHOWN_CHARS < len(BIG)


