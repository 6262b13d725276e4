"""A large document's Document tab: opened around the edited skill, the rest in folds
that load their lines on demand, a page at a time; what every fold holds, opened, is
the whole document."""

from __future__ import annotations

import dataclasses
import gzip
import re
from html import unescape

import brotli
import pytest

from tests.support.pages import HTMX
from tests.support.workspaces import many_skills
from webapp.pipeline import assemble
from webapp.render import markdown_to_html
from webapp.views import document_window
from webapp.views.document_window import DocumentWindow, Fold, Opened, parse_lines, parse_opened
from webapp.views.preview import with_draft
from webapp.views.source_table import source_rows

EDITOR = "/agents/Many/skills/skill_30"
FOLD = re.compile(r'<a class="fold-link" href="([^"]+)" hx-(get|post)="\1"\s+'
                  r'hx-target="closest \.fold" hx-swap="outerHTML"(?: data-fold="[^"]+")?>'
                  r'([^<]+)</a>')


def keystroke(client, csrf, shown: str, text: str = "Typed now.", opened: str = "",
              **headers):
    content = many_skills(60).skills_by_tag["skill_30"].content + "\n\n" + text
    data = {"csrf_token": csrf, "version": "1", "d_tag": "skill_30", "name": "", "layer": "1",
            "triggers": "dm", "enabled": "1", "content": content, "shown": shown,
            "opened": opened}
    response = client.post(f"{EDITOR}/preview", data=data, headers={**HTMX, **headers})
    assert response.status_code == 200
    return response, data


def test_a_keystroke_sends_the_edited_skills_part_and_folds(client, many, csrf):
    for shown in ("document:rendered", "document:source"):
        response, _ = keystroke(client, csrf, shown)
        html = response.data.decode()
        assert "Typed now." in html and "skill 30 does" in html
        assert "skill 5 does" not in html and "skill 50 does" not in html
        folds = FOLD.findall(html)
        assert [method for _, method, _ in folds] == ["post", "post"]
        assert re.fullmatch(r"[\d,]+ lines from 30 other skills", folds[0][2])
        assert re.fullmatch(r"[\d,]+ lines from 29 other skills", folds[1][2])
        # The skill list and the picker stay where they are.
        assert 'id="skill-list"' not in html and 'id="scenario-picker"' not in html
        assert len(response.data) < 40_000


def test_a_fold_posted_with_the_draft_opens_a_page_of_it(client, many, csrf):
    response, data = keystroke(client, csrf, "document:source")
    url = unescape(FOLD.findall(response.data.decode())[1][0])
    assert url.startswith("/agents/Many/preview/lines?") and "skill=skill_30" in url
    opened = client.post(url, data=data, headers=HTMX)
    html = opened.data.decode()
    assert opened.status_code == 200 and html.lstrip().startswith("<tr")
    assert html.count('<td class="num">') == document_window.PAGE_LINES
    (rest,) = FOLD.findall(html)  # the rest of the range, folded again
    assert rest[2].endswith("other skills") and "skill 59 does" not in html


def test_without_javascript_a_fold_is_a_page(client, many):
    page = client.get(EDITOR).data.decode()
    url = unescape(FOLD.findall(page)[0][0])
    opened = client.get(url)
    html = opened.data.decode()
    assert opened.status_code == 200 and html.lstrip().lower().startswith("<!doctype html>")
    assert re.search(r"<h1 id=\"lines-title\">Lines \d+–\d+ of the document", html)
    assert "skill 0 does" in html
    assert '<a href="/agents/Many/skills/skill_30">skill_30</a>' in html


@pytest.mark.parametrize("query", ["view=rendered", "view=source&lines=abc",
                                   "view=other&lines=1-5", "view=source&lines=0-5",
                                   "view=source&lines=9-3", "view=source&lines=%EF%BC%91-5",
                                   "lines=1-5"])
def test_a_bad_range_is_a_422(client, many, query):
    assert client.get(f"/agents/Many/preview/lines?skill=skill_30&{query}").status_code == 422


def test_a_missing_skill_is_a_404(client, many):
    response = client.get("/agents/Many/preview/lines?skill=nope&view=source&lines=1-5")
    assert response.status_code == 404


def test_a_large_documents_page_renders_the_open_panel_alone(client, many):
    page = client.get(EDITOR).data.decode()
    assert 'class="message-card' in page and "skill 30 does" in page
    assert '<table class="source highlight">' not in page and 'class="request-body"' not in page
    link = "/agents/Many/skills/skill_30/preview?shown=document:source"
    assert f'href="{link}">Show this panel</a>' in page
    assert '<table class="source highlight">' in client.get(link).data.decode()


def test_the_agent_preview_opens_at_the_documents_start(client, many):
    page = client.get("/agents/Many/preview").data.decode()
    assert "skill 0 does" in page and "skill 59 does" not in page
    (fold,) = FOLD.findall(page)
    assert fold[1] == "get" and re.fullmatch(r"[\d,]+ lines from \d+ skills", fold[2])
    assert "Show this panel" in page and 'class="request-body"' not in page
    opened = client.get(unescape(fold[0]), headers=HTMX).data.decode()
    assert opened.lstrip().startswith("<") and FOLD.search(opened)


def test_compressed_keystrokes_decode_to_the_same_html(client, many, csrf):
    plain, _ = keystroke(client, csrf, "document:rendered", **{"Accept-Encoding": "identity"})
    for encoding, decode in (("br", brotli.decompress), ("gzip", gzip.decompress)):
        response, _ = keystroke(client, csrf, "document:rendered",
                                **{"Accept-Encoding": encoding})
        assert response.headers["Content-Encoding"] == encoding
        assert decode(response.data) == plain.data


def opened(window: DocumentWindow, parts: list) -> list:
    """`parts` with every fold opened, and the folds its lines hold, down to the last."""
    out = []
    for part in parts:
        out += opened(window, window.expand(part.view, part.start, part.end)) \
            if isinstance(part, Fold) else [part]
    return out


@pytest.mark.parametrize("d_tag", ["skill_30", "skill_0", "skill_59", None])
def test_every_fold_opened_is_the_whole_document(d_tag):
    context = assemble(many_skills(60), "dm")
    window = DocumentWindow(context, d_tag, None)
    assert window.large and not window.whole
    rows = opened(window, window.source())
    assert "".join(rows) == "".join(source_rows(context.document, context.provenance, d_tag,
                                                None))
    for message, parts in window.rendered(context.messages):
        assert "\n".join(opened(window, parts)) == markdown_to_html(message["content"])
    assert len(context.messages) == 2  # the skills' system message and the user's


def test_a_window_makes_an_origin_for_the_lines_it_shows_alone():
    """A keystroke on a large document reads which skill wrote which lines from the runs
    of its origins (`line_runs`), never the whole provenance one object a line."""
    context = assemble(many_skills(60), "dm")
    window = DocumentWindow(context, "skill_30", None)
    window.source()
    window.rendered(context.messages)
    window.expand("source", 0, 40)
    assert context._provenance is None  # never made
    assert len(context.provenance) == len(context.origins) > 1000


def test_a_small_document_is_shown_whole():
    context = assemble(many_skills(3), "dm")
    window = DocumentWindow(context, "skill_1", None)
    assert window.whole and window.rendered(["card"]) == [("card", None)]
    assert not any(isinstance(part, Fold) for part in window.source())


def test_lines_are_read_as_the_address_writes_them():
    assert parse_lines("121-340") == (120, 340) and parse_lines("1-1") == (0, 1)
    for bad in ("0-3", "3-2", "a-b", "1-", "-1", "١-٢", None, ["1-2"], "1" * 5000 + "-2"):
        assert parse_lines(bad) is None
    assert Fold("source", 120, 340, 12).lines == "121-340"
    assert Fold("source", 0, 1200, 1).text == "1,200 lines from 1 other skill"
    assert Fold("rendered", 0, 1, 0, other=False).text == "1 line"


def test_a_large_documents_bodies_are_cut_and_whole_a_click_away(client, many, csrf):
    response, data = keystroke(client, csrf, "messages")
    html = response.data.decode()
    assert "characters in all]" in html and 'data-copy="#body-' not in html
    url = "/agents/Many/preview/body?skill=skill_30&amp;provider=openai"
    assert f'formaction="{url}" formmethod="post" formtarget="_blank"' in html
    assert len(response.data) < 40_000
    whole = client.post(unescape(url), data=data)
    assert whole.status_code == 200 and whole.mimetype == "application/json"
    system = whole.get_json()["messages"][0]["content"]
    assert "Typed now." in system and "skill 0 does" in system and "skill 59 does" in system
    # The agent preview's bodies are links (GETs) to the saved context's.
    page = client.get("/agents/Many/preview?shown=messages").data.decode()
    assert ('<a class="button" href="/agents/Many/preview/body?provider=anthropic" '
            'target="_blank">Whole body</a>') in page
    saved = client.get("/agents/Many/preview/body?provider=anthropic").get_json()
    assert "Typed now." not in saved["system"] and "skill 59 does" in saved["system"]
    assert client.get("/agents/Many/preview/body?provider=other").status_code == 422


def test_a_shown_field_naming_no_panel_gets_the_large_pages_panel_windowed(client, many,
                                                                           csrf):
    """As a page of a large document: the Document's rendered view, windowed; every other
    panel a placeholder, whose button (no JavaScript) posts the draft again for it."""
    response, _ = keystroke(client, csrf, "chart")
    html = response.data.decode()
    assert 'class="message-card' in html and 'class="request-body"' not in html
    assert FOLD.search(html) and "skill 50 does" not in html
    assert 'name="shown" value="messages" formaction="/agents/Many/skills/skill_30/preview"' \
        in html


# -- folds opened stay open


def flat(parts: list, sep: str) -> list:
    """`parts` as the page shows them: runs of lines joined, a fold as its range."""
    out: list = []
    for part in parts:
        if isinstance(part, Fold):
            out.append((part.view, part.start, part.end))
        elif out and isinstance(out[-1], str):
            out[-1] += sep + str(part)
        else:
            out.append(str(part))
    return out


def with_opened(parts: list, window: DocumentWindow, fold: Fold) -> list:
    """`parts` with `fold` opened in place, as htmx does."""
    i = parts.index(fold)
    return parts[:i] + window.expand(fold.view, fold.start, fold.end) + parts[i + 1:]


@pytest.mark.parametrize("which", [0, 1])
def test_a_window_with_a_fold_opened_shows_it_as_opening_it_did(which):
    context = assemble(many_skills(60), "dm")
    window = DocumentWindow(context, "skill_30", None)
    source = window.source()
    fold = [part for part in source if isinstance(part, Fold)][which]
    again = DocumentWindow(context, "skill_30", None, opened=parse_opened(fold.opened))
    assert flat(again.source(), "") == flat(with_opened(source, window, fold), "")
    (_, rendered), _ = window.rendered(context.messages)
    fold = [part for part in rendered if isinstance(part, Fold)][which]
    again = DocumentWindow(context, "skill_30", None, opened=parse_opened(fold.opened))
    (_, shown), _ = again.rendered(context.messages)
    assert flat(shown, "\n") == flat(with_opened(rendered, window, fold), "\n")


def test_an_opened_fold_after_the_skill_moves_with_the_lines_typed():
    workspace = many_skills(60)
    window = DocumentWindow(assemble(workspace, "dm"), "skill_30", None)
    fold = [part for part in window.source() if isinstance(part, Fold)][1]  # after skill_30
    skill = workspace.skills_by_tag["skill_30"]
    typed = dataclasses.replace(skill, content=skill.content + "\n\nTwo lines\ntyped.")
    context = assemble(with_draft(workspace, typed), "dm")
    again = DocumentWindow(context, "skill_30", None, opened=parse_opened(fold.opened))
    folds = [part for part in again.source() if isinstance(part, Fold)]
    moved = fold.start + len(context.provenance) - fold.total  # 3 lines more
    assert moved == fold.start + 3
    assert (folds[-1].start, folds[-1].end) == (moved + document_window.PAGE_LINES,
                                                len(context.provenance))


def test_opened_folds_are_read_as_the_form_keeps_them():
    assert parse_opened("source:121-340/21000 rendered:1-5/9") == [
        Opened("source", 120, 340, 21000), Opened("rendered", 0, 5, 9)]
    assert parse_opened("other:1-5/9 source:5-1/9 source:1-5 source:1-5/x "
                        f"source:1-5/{'9' * 5000}") == []
    assert parse_opened(None) == [] and parse_opened(["source:1-5/9"]) == []
    assert len(parse_opened(" ".join(["source:1-5/9"] * 100))) == document_window.OPENED_MAX
    assert Fold("source", 120, 340, 3, total=21000).opened == "source:121-340/21000"


def test_a_keystroke_shows_the_folds_opened_open(client, many, csrf):
    for shown in ("document:rendered", "document:source"):
        response, _ = keystroke(client, csrf, shown)
        html = response.data.decode()
        fold = re.search(r'data-fold="([^"]+)">([^<]+)</a>', html)
        assert "skill 0 does" not in html and fold[2].endswith("from 30 other skills")
        response, _ = keystroke(client, csrf, shown, opened=fold[1], text="Typed next.")
        html = response.data.decode()
        assert "skill 0 does" in html and "Typed next." in html  # open, with the draft
        assert fold[1] not in html  # that fold is not offered again
