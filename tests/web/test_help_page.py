"""The help page: docs/SKILLS.md rendered in the app, safely, and re-read when it changes."""

from __future__ import annotations

import os

import pytest

from tests.support.pages import HTMX, executable_markup, fragment_root, is_page
from webapp.web import help as help_page


def test_help_page_renders_the_authors_guide(client):
    response = client.get("/help")
    assert response.status_code == 200 and is_page(response)
    html = response.data.decode()
    # Each heading has an anchor, as GitHub makes it, so a page can link to a section.
    assert '<h1 id="writing-skills">Writing skills</h1>' in html
    assert '<h2 id="role-markers">Role markers</h2>' in html
    assert "<table>" in html and "<code>reference-cycle</code>" in html
    assert '<div class="highlight">' in html  # fenced code, highlighted by pygments
    assert executable_markup(html) == []


def test_help_fragment(client):
    response = client.get("/help", headers=HTMX)
    assert not is_page(response) and "HX-Request" in response.headers["Vary"]
    assert fragment_root(response).startswith(b'<article id="help"')


def test_editor_links_to_help(client, simon):
    assert 'href="/help"' in client.get("/agents/Simon/skills/chat").data.decode()


@pytest.fixture
def guide(tmp_path, monkeypatch):
    """A guide file of the test's own in place of docs/SKILLS.md."""
    path = tmp_path / "SKILLS.md"
    monkeypatch.setattr(help_page, "GUIDE", path)
    return path


def test_an_edited_guide_shows_on_the_next_request(client, guide):
    guide.write_text("# First edition\n", encoding="utf-8")
    assert b'<h1 id="first-edition">First edition</h1>' in client.get("/help").data
    guide.write_text("# Second edition\n", encoding="utf-8")
    stat = guide.stat()
    os.utime(guide, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert b'<h1 id="second-edition">Second edition</h1>' in client.get("/help").data


def test_the_guide_is_sanitized_like_skill_text(client, guide):
    guide.write_text("# Guide\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))\n"
                     "<img src=x onerror=alert(1)>\n", encoding="utf-8")
    html = client.get("/help").data.decode()
    assert executable_markup(html) == []


def test_a_missing_guide_is_404(client, guide):
    response = client.get("/help")
    assert response.status_code == 404 and b"SKILLS.md is not installed" in response.data


def test_heading_anchors_are_githubs_and_unique():
    page = help_page.anchored("<h1>How it works</h1><h2>1. Select the skills</h2>"
                              "<h3>Joined with <code>---</code> &amp; more</h3><h2>Status</h2>"
                              "<h2>1. Select the skills</h2><hr><p>h2</p>")
    assert page == ('<h1 id="how-it-works">How it works</h1>'
                    '<h2 id="1-select-the-skills">1. Select the skills</h2>'
                    '<h3 id="joined-with------more">Joined with <code>---</code> &amp; more</h3>'
                    # The page's own ids are not taken, nor one already given.
                    '<h2 id="status-1">Status</h2>'
                    '<h2 id="1-select-the-skills-1">1. Select the skills</h2><hr><p>h2</p>')


def test_the_folders_guide_as_page_and_fragment(client, simon):
    page = client.get("/help/folders")
    assert page.status_code == 200 and is_page(page)
    html = page.data.decode()
    assert ">Agent Skills folders</h1>" in html and "<code>catalogue-overflow</code>" in html
    assert executable_markup(html) == []
    fragment = client.get("/help/folders", headers=HTMX)
    assert fragment_root(fragment).startswith(b'<article id="help"')
    assert 'href="/help/folders"' in client.get("/agents/Simon/settings").text
