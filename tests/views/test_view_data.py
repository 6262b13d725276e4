"""The view data is built without Flask: no app, no request, no app context. A page's
URLs come in as functions, so what a page shows is tested here as plain data."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import webapp
from webapp.pipeline import load_bundle
from webapp.views.agent_preview import build, build_comparison
from webapp.views.messages import Models
from webapp.views.panels import shown_panels
from webapp.views.preview import Choice, build_preview

SIMON = load_bundle(Path(webapp.__file__).parent / "demo" / "simon.json")


def test_the_agent_preview_is_plain_data():
    links: list[str] = []

    def link(d_tag: str) -> str:
        links.append(d_tag)
        return f"/edit/{d_tag}"

    preview = build(SIMON, Choice(), Models(), link)
    assert preview.cards and preview.bodies and preview.total_tokens.n > 0
    source = "".join(str(part) for part in preview.window.source())
    assert 'href="/edit/chat' in source and "chat" in links


def test_the_editor_preview_compares_a_draft_without_an_app():
    chat = next(skill for skill in SIMON.skills if skill.d_tag == "chat")
    draft = dataclasses.replace(chat, content=chat.content + "\nA new line.\n")
    preview = build_preview(SIMON, draft, Choice(), Models(), lambda d_tag: d_tag)
    assert preview.changed and preview.document_diff.added >= 1


def test_a_comparison_of_two_choices():
    comparison = build_comparison(SIMON, Choice(), Choice(), Models())
    assert not comparison.document_diff.changed and comparison.only_a == []


def test_the_panels_a_request_asks_for():
    assert shown_panels("diff") == {"diff"}
    assert shown_panels("nonsense") is None
