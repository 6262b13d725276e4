"""Untrusted text never becomes executable markup, and every response carries the security headers.

The XSS corpus goes into every place untrusted text enters: skill content, skill
names and d_tags, the agent's title, tool results, scenario messages, DM history and
the triggering event. Every page and fragment built from it is parsed and checked for
script, event handlers, dangerous URLs, styles and active elements.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.pages import HTMX, executable_markup
from tests.support.xss import CORPUS, EVIL_TAG, XSS, xss_bundle  # noqa: F401
from webapp.web.security import CONTENT_SECURITY_POLICY

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"

def assert_safe(response):
    html = response.data.decode()
    assert executable_markup(html) == []
    # The payloads' text is still there, escaped: nothing was silently dropped from view.
    return html


def test_editor_page_is_safe(client, mallory):
    html = assert_safe(client.get("/agents/Mallory/skills/evil"))
    assert "&lt;script&gt;alert(&#39;script&#39;)&lt;/script&gt;" in html  # the textarea


def test_every_tab_of_a_draft_preview_is_safe(client, mallory, csrf):
    data = {"csrf_token": csrf, "version": 1, "d_tag": "evil", "layer": "1", "triggers": "dm",
            "enabled": "1", "name": "x", "content": "system:\n" + CORPUS + "\n{{payload}}\n",
            "message": CORPUS, "provider": "<script>alert(1)</script>"}
    for headers in ({}, HTMX):
        html = assert_safe(client.post("/agents/Mallory/skills/evil/preview", data=data,
                                       headers=headers))
        assert 'data-panel="pipeline"' in html


def test_the_embedded_skill_with_a_hostile_d_tag_is_safe(client, mallory):
    from urllib.parse import quote

    url = "/agents/Mallory/skills/" + quote(EVIL_TAG, safe="")
    response = client.get(url)
    assert response.status_code == 200
    assert_safe(response)


def test_conflict_page_is_safe(client, mallory, csrf):
    data = {"csrf_token": csrf, "version": 1, "d_tag": "evil", "layer": "1", "triggers": "dm",
            "enabled": "1", "name": "x", "content": CORPUS}
    assert client.post("/agents/Mallory/skills/evil", data=data).status_code == 303
    response = client.post("/agents/Mallory/skills/evil", data={**data, "content": CORPUS + "!"})
    assert response.status_code == 409
    assert_safe(response)


def test_index_log_and_list_fragments_are_safe(client, mallory, csrf):
    assert_safe(client.get("/"))
    data = {"csrf_token": csrf, "content": CORPUS, "message": CORPUS}
    assert_safe(client.post("/agents/Mallory/skills/evil/log", data=data, headers=HTMX))
    moved = client.post("/agents/Mallory/skills/evil/move", headers=HTMX,
                        data={"csrf_token": csrf, "direction": "down", "current": EVIL_TAG})
    assert_safe(moved)


def test_error_pages_do_not_reflect_markup(client, mallory):
    response = client.get("/agents/%3Cscript%3Ealert(1)%3C%2Fscript%3E/skills/x")
    assert response.status_code == 404
    html = assert_safe(response)
    assert "<script>alert(1)" not in html


def test_sanitized_markdown_keeps_its_meaning(client, mallory):
    html = client.get("/agents/Mallory/skills/evil").data.decode()
    # Fenced code is shown as code, not run; links lose only their dangerous href.
    assert "&lt;script&gt;alert(&#39;fenced&#39;)&lt;/script&gt;" in html or \
        "&lt;script&gt;alert(&#39;fenced&#39;)" in html.replace('<span class="p">', "")
    assert "markdown link" in html


@pytest.mark.parametrize("url", ["/", "/agents/Simon/skills/nope", "/agents/Simon/names",
                                 "/static/app.css", "/static/vendor/htmx-2.0.4.min.js"])
def test_security_headers_on_every_response(client, simon, url):
    response = client.get(url)
    assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY


@pytest.mark.parametrize("url", ["/agents/Simon/skills/chat", "/agents/Simon/tools",
                                 "/agents/Simon/scenarios"])
def test_a_page_with_the_code_editor_allows_its_styles_by_a_fresh_nonce(client, simon, url):
    policies = [client.get(url).headers["Content-Security-Policy"] for _ in range(2)]
    nonces = []
    for policy in policies:
        match = re.fullmatch(
            re.escape(CONTENT_SECURITY_POLICY).replace(
                re.escape("style-src 'self'"), r"style-src 'self' 'nonce-([A-Za-z0-9_-]{24})'"),
            policy)
        assert match, policy
        nonces.append(match[1])
    assert nonces[0] != nonces[1]
    html = client.get(url)
    nonce = re.search(r"'nonce-([^']+)'", html.headers["Content-Security-Policy"])[1]
    assert f'code-editor.js" nonce="{nonce}" defer' in html.data.decode()
    # The preview fragment loads nothing: its policy has no nonce.
    fragment = client.get("/agents/Simon/skills/chat/preview", headers={"HX-Request": "true"})
    assert fragment.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY


def test_no_inline_script_style_or_handlers_in_templates():
    for path in TEMPLATES.glob("*.html"):
        text = path.read_text()
        for match in re.finditer(r"<script\b[^>]*>", text):
            assert "src=" in match.group(0), f"{path.name}: inline script"
        assert not re.search(r"<style\b", text), f"{path.name}: inline <style>"
        assert not re.search(r"\sstyle=", text), f"{path.name}: style attribute"
        assert not re.search(r"\son[a-z]+\s*=", text), f"{path.name}: inline event handler"


def test_session_cookie_is_http_only(client, simon):
    response = client.get("/agents/Simon/skills/chat")
    cookie = response.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
