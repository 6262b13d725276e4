"""The preview's fast paths show what the plain computations show, and a keystroke redoes
only what it changed: token counts by pieces, cached rendering, diffs of large documents."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from datetime import UTC, datetime

import markdown
import pytest
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import JsonLexer

from tests.support.workspaces import many_skills
from webapp import render, tokens
from webapp.bounds.lru import LRU
from webapp.render import blocks, html
from webapp.render import highlight as highlighting
from webapp.textdiff import opcodes as diffing
from webapp.views.messages import Models, cut_strings
from webapp.views.preview import Choice, build_preview


@pytest.mark.parametrize("text, pieces", [
    ("", [""]),
    ("one line", ["one line"]),
    ("a\n\nb", ["a\n\n", "b"]),
    ("a\n\n\n# b\n\nc.", ["a\n\n\n", "# b\n\n", "c."]),
    # The encoding's split would take these along with the newlines: no cut.
    ("a\n\n b", ["a\n\n b"]),
    ("a\n\n/b", ["a\n\n/b"]),
    ("a\n\n\u00a0b", ["a\n\n\u00a0b"]),
    ("a\nb", ["a\nb"]),
])
def test_token_pieces(text, pieces):
    assert list(tokens.pieces(text)) == pieces


def test_token_counts_by_pieces_add_up_to_the_whole():
    encoding = tokens.encoding()
    assert encoding is not None
    rng = random.Random(5)
    parts = ["a", "Word", " ", "\t", "\n", "\n\n", "/", ".", "'s", "12345", "é", "日本", "🦀",
             "\u00a0", "\u2028", "\x1c", "\r\n", "#", "-", "<|endoftext|>"]
    for _ in range(3000):
        text = "".join(rng.choice(parts) for _ in range(rng.randrange(40)))
        assert tokens.count_tokens(text).n == len(encoding.encode_ordinary(text)), repr(text)


def test_long_pieces_are_cut_after_single_newlines_and_still_add_up(monkeypatch):
    """A piece past `CACHED_PIECE_CHARS` (here 8) is cut after single newlines too, where
    the encoding's split starts a word, and the counts still add up to the whole."""
    monkeypatch.setattr(tokens, "CACHED_PIECE_CHARS", 8)
    assert list(tokens.pieces("first line\nsecond line\n third\n/x\nlast")) == [
        "first line\n", "second line\n third\n/x\n", "last"]
    encoding = tokens.encoding()
    assert encoding is not None
    rng = random.Random(7)
    parts = ["a", "Word", " ", "\n", "\n", "\n\n", "/", ".", "12", "é", "\u00a0", "\r\n", "#"]
    for _ in range(2000):
        text = "".join(rng.choice(parts) for _ in range(rng.randrange(60)))
        assert tokens.count_tokens(text).n == len(encoding.encode_ordinary(text)), repr(text)


def test_long_pieces_are_cut_where_a_line_by_line_reading_cuts(monkeypatch):
    """The cuts inside a long piece are looked for half a piece on, not at every line: the
    same cuts as reading each run of newlines (so the remembered counts keep their keys)."""
    monkeypatch.setattr(tokens, "CACHED_PIECE_CHARS", 8)

    def line_by_line(text: str) -> list[str]:
        cut, start = [], 0
        for match in re.finditer(r"\n+", text):
            end = match.end()
            if end - start >= 4 and end < len(text) and tokens._split_before(text[end]):
                cut.append(text[start:end])
                start = end
        return [*cut, text[start:]]

    rng = random.Random(11)
    parts = ["a", "Word", " ", "\n", "\n", "\n\n\n", "/", "\t", "\u00a0", "xy\n"]
    for _ in range(3000):
        text = "".join(rng.choice(parts) for _ in range(rng.randrange(40)))
        if "\n\n" not in text and len(text) > 8:  # one piece: cut after single newlines
            assert list(tokens.pieces(text)) == line_by_line(text), repr(text)


def test_a_text_past_the_exact_size_is_estimated_from_what_was_counted(monkeypatch):
    monkeypatch.setattr(tokens, "EXACT_CHARS", 1000)
    text = "A sentence of plain prose.\n\n" * 400  # 11,600 characters, 2,400 tokens
    counted = tokens.count_tokens(text)
    assert not counted.exact and "past 1,000 characters" in counted.reason
    assert abs(counted.n - 2400) <= 24
    assert tokens.count_tokens(text[:900]).exact


def test_texts_counted_together_share_the_exact_size(monkeypatch):
    """The Budget chart counts every part of a document: together, no more exactly than
    one count of the document would."""
    monkeypatch.setattr(tokens, "EXACT_CHARS", 1000)
    text = "A sentence of plain prose.\n\n" * 20  # 560 characters, 120 tokens
    counted = []
    piece = tokens._count_piece
    monkeypatch.setattr(tokens, "_count_piece", lambda p: counted.append(p) or piece(p))
    first, second, third = tokens.count_texts([text] * 3)
    assert 1000 <= sum(map(len, counted)) < 1100
    assert first == tokens.count_tokens(text) and first.exact and first.n == 120
    assert not second.exact and not third.exact and "past 1,000" in third.reason
    assert abs(second.n - 120) <= 2 and abs(third.n - 120) <= 2


def test_a_count_past_the_exact_size_cuts_no_further(monkeypatch):
    """The pieces are made as they are counted: a 20 MB document's count looked at every
    place the whole text may be cut before counting its first 4 MiB."""
    monkeypatch.setattr(tokens, "EXACT_CHARS", 1000)
    looked = []
    split_before = tokens._split_before
    monkeypatch.setattr(tokens, "_split_before",
                        lambda char: looked.append(char) or split_before(char))
    tokens.count_tokens("A sentence of plain prose.\n\n" * 4000)  # 4,000 places
    assert 1000 // 28 <= len(looked) <= 1100 // 28


def test_common_head_and_tail_match_a_plain_scan():
    rng = random.Random(9)
    for _ in range(2000):
        a = [rng.choice("ab") for _ in range(rng.randrange(40))]
        b = [rng.choice("ab") for _ in range(rng.randrange(40))]
        alo, ahi, blo, bhi = diffing.trim(a, b, 0, len(a), 0, len(b))
        head = 0
        while head < min(len(a), len(b)) and a[head] == b[head]:
            head += 1
        tail = 0
        while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
            tail += 1
        assert (alo, ahi, blo, bhi) == (head, len(a) - tail, head, len(b) - tail)


def _typed(workspace, d_tag: str, text: str):
    skill = workspace.skills_by_tag[d_tag]
    return dataclasses.replace(skill, content=f"{skill.content}\n\n## Typed just now\n{text}")


def test_a_large_preview_shows_what_whole_rendering_shows():
    workspace = many_skills(30)
    preview = build_preview(workspace, _typed(workspace, "skill_15", "A *typed* line"),
                            Choice(), Models())
    encoding = tokens.encoding()
    assert encoding is not None
    for card, message in zip(preview.cards, preview.context.messages, strict=True):
        content = message["content"]
        whole = markdown.markdown(content, extensions=html.MARKDOWN_EXTENSIONS,
                                  extension_configs=html.MARKDOWN_CONFIG, output_format="html")
        assert card.html == render.sanitize(whole)
        assert card.tokens.n == len(encoding.encode_ordinary(content))
    document = preview.context.document
    assert preview.total_tokens.n == len(encoding.encode_ordinary(document))
    assert render.highlight_markdown_lines(document) == list(
        highlighting.highlight_lines(document))
    for body in preview.bodies:
        # A large document's body is shown with its long strings cut (`messages.cut_strings`).
        assert body.cut
        shown = json.dumps(cut_strings(body.value, body.cut), indent=2, ensure_ascii=False)
        assert body.html == highlight(shown, JsonLexer(),
                                      HtmlFormatter(cssclass=render.HIGHLIGHT_CLASS))
        assert json.loads(body.text)["messages"]
    (hunk,) = preview.document_diff.hunks
    assert sorted(line.text for line in hunk.lines if line.kind != "context") == [
        "", "### Typed just now", "A *typed* line"]


def test_a_keystroke_renders_only_the_block_it_changed(monkeypatch, sent_to_workers):
    converted, highlighted = sent_to_workers["markdown"], sent_to_workers["highlight"]
    monkeypatch.setattr(html, "_rendered", LRU("test", 10**8))
    monkeypatch.setattr(highlighting, "_highlighted", LRU("test", 10**8))
    workspace = many_skills(30)

    def shown(text: str) -> None:  # the preview's Document tab, both views, whole
        preview = build_preview(workspace, _typed(workspace, "skill_15", text), Choice(),
                                Models(), whole=True)
        [card.html for card in preview.cards], preview.window.source()

    shown("A lin")
    converted.clear()
    highlighted.clear()
    shown("A line")
    # The block runs on to the separator: a line starting with "-" is not cut before.
    assert converted == highlighted == ["### Typed just now\nA line\n\n---\n\n"]


def test_odd_line_breaks_are_all_seen():
    for char in "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\ufeff":
        assert blocks.source_blocks(f"a\n\nb{char}c\n\nd") == [f"a\n\nb{char}c\n\nd"]
    assert blocks.source_blocks("a\n\nb\n\nc") == ["a\n\n", "b\n\n", "c"]


def test_the_saved_assembly_is_reused_while_the_saved_workspace_is_the_same(monkeypatch):
    from webapp.views import preview as preview_module

    assembled: list[str] = []

    def assemble(workspace, *args, **kwargs):
        assembled.append(workspace.skills_by_tag["skill_15"].content.rsplit("\n", 1)[-1])
        return preview_module_assemble(workspace, *args, **kwargs)

    preview_module_assemble = preview_module.assemble
    monkeypatch.setattr(preview_module, "assemble", assemble)
    workspace = many_skills(30)
    saved = workspace.skills_by_tag["skill_15"].content.rsplit("\n", 1)[-1]
    first = build_preview(workspace, _typed(workspace, "skill_15", "A lin"), Choice(), Models())
    assembled.clear()
    # A copy, as the store loads it again for each request.
    again = dataclasses.replace(workspace,
                                skills=tuple(dataclasses.replace(s) for s in workspace.skills))
    second = build_preview(again, _typed(again, "skill_15", "A line"), Choice(), Models())
    assert assembled == ["A line"]  # the draft only
    assert second.saved is first.saved
    assert second.document_diff.added == first.document_diff.added
    # Another choice, or another saved workspace, is assembled afresh.
    assembled.clear()
    # (A trigger that does not select the skill would be followed back to the same choice.)
    build_preview(again, _typed(again, "skill_15", "A line"), Choice(message="other"), Models())
    changed = dataclasses.replace(workspace, skills=(*workspace.skills[:15], _typed(
        workspace, "skill_15", "saved"), *workspace.skills[16:]))
    third = build_preview(changed, _typed(changed, "skill_15", "A line"), Choice(), Models())
    assert assembled == [saved, "A line", "saved", "A line"]
    assert third.saved.document == preview_module.run(changed, Choice()).document


def test_the_saved_skill_previewed_is_assembled_afresh(monkeypatch):
    """Its context is the one shown, and the log entry it shows carries the time of now."""
    workspace = many_skills(3)
    skill = workspace.skills_by_tag["skill_1"]
    first = build_preview(workspace, skill, Choice(), Models())
    second = build_preview(workspace, skill, Choice(), Models())
    assert second.context is not first.context and second.saved is second.context
    draft = build_preview(workspace, _typed(workspace, "skill_1", "x"), Choice(), Models())
    assert draft.saved is second.context


def test_a_page_is_the_template_rendered_and_encoded_whole(app, simon):
    from flask import render_template

    from webapp.views.agents import AgentRow
    from webapp.web.responses import page_or_fragment

    big = "<b>" + "x" * 100_000 + "</b>"
    with app.test_request_context():
        when = datetime(2026, 12, 3, tzinfo=UTC)
        for template in ("index.html", "_agents.html"):
            agents = [AgentRow("Ünïcode → ≈ " + big, 3, when, 1, 0),
                      AgentRow("ascii", 1, when, 0, 0)]
            response = page_or_fragment(template, template, agents=agents, trash=[])
            assert response.get_data() == render_template(template, agents=agents,
                                                           trash=[]).encode()
            assert response.headers["Content-Length"] == str(len(response.get_data()))


def test_a_piece_with_no_place_to_cut_is_counted_up_to_the_exact_size(monkeypatch):
    """A request body is one line: its 20 MB were counted whole (3 s a step page)."""
    monkeypatch.setattr(tokens, "EXACT_CHARS", 1000)
    counted = []
    piece = tokens._count_piece
    monkeypatch.setattr(tokens, "_count_piece", lambda p: counted.append(p) or piece(p))
    text = "a plain word " * 2000  # 26,000 characters on one line, 6,000 tokens
    found = tokens.count_tokens(text)
    assert [len(p) for p in counted] == [1000]
    assert not found.exact and "past 1,000 characters" in found.reason
    assert abs(found.n - 6000) <= 60


def test_a_big_step_pages_counts_are_all_remembered(monkeypatch):
    """A step page of a 20 MB document counts its two texts to the exact size and the
    parts of the skills it diffs; the next view counts none of them again (the counts'
    memory held less than the two texts, and every view counted them all)."""
    monkeypatch.setattr(tokens, "_counts", LRU("token counts of pieces", tokens.COUNTED_CHARS,
                                               weight=lambda piece, count: len(piece)))

    def text(tag: str, chars: int) -> str:
        return "".join(f"Rule {n} of {tag}: answer in plain words.\n"
                       for n in range(chars // 40))
    texts = [text("before", 5_000_000), text("after", 5_000_000),
             *(text(f"skill {s} {side}", 100_000) for s in range(8) for side in "ab")]
    first = [tokens.count_tokens(t) for t in texts]
    counted = []
    count = tokens._count
    monkeypatch.setattr(tokens, "_count", lambda piece: counted.append(piece) or count(piece))
    assert [tokens.count_tokens(t) for t in texts] == first
    assert counted == []
