"""Untrusted text never becomes executable markup, and every response carries the security headers.

The XSS corpus goes into every place untrusted text enters: skill content, skill
names and d_tags, the agent's title, tool results, scenario messages, DM history and
the triggering event. Every page and fragment built from it is parsed and checked for
script, event handlers, dangerous URLs, styles and active elements.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from webapp import db, store
from webapp.pipeline import load_bundle
from webapp.web.security import CONTENT_SECURITY_POLICY

from .conftest import HTMX, executable_markup

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"

XSS = [
    "<script>alert('script')</script>",
    '<img src=x onerror="alert(\'img\')">',
    "[markdown link](javascript:alert('md'))",
    '<a href="javascript:alert(1)">html link</a>',
    '<a href=" JaVaScRiPt:alert(1)">spaced link</a>',
    "<svg onload=alert('svg')><circle r=1 /></svg>",
    "<svg><script>alert('svg script')</script></svg>",
    "<svg><a xlink:href=\"javascript:alert(1)\"><text>x</text></a></svg>",
    "```html\n<script>alert('fenced')</script>\n<img src=x onerror=alert('fenced img')>\n```",
    "    <script>alert('indented code')</script>",
    "`<script>alert('inline code')</script>`",
    '<iframe src="javascript:alert(1)"></iframe>',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data link</a>',
    "![data image](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    '<div style="background:url(javascript:alert(1))">styled</div>',
    '"><script>alert("attribute breakout")</script>',
    "'><img src=x onerror=alert(1)>",
    '<math><mi xlink:href="javascript:alert(1)">math</mi></math>',
    '<object data="javascript:alert(1)"></object><embed src="javascript:alert(1)">',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    "<details open ontoggle=alert('details')>",
    '<form action="javascript:alert(1)">'
    '<button formaction="javascript:alert(2)">go</button></form>',
    "<style>body{background:url(javascript:alert(1))}</style>",
    "<base href=\"javascript:alert(1)//\">",
    "<!-- <script>alert('comment')</script> -->",
    "{{ '<script>alert(1)</script>' }}",
    "<scr<script>ipt>alert('nested')</scr</script>ipt>",
    "&lt;script&gt;alert('entities')&lt;/script&gt;",
]
CORPUS = "\n\n".join(XSS)
#: A d_tag may hold anything but whitespace and braces, so it can carry markup too.
EVIL_TAG = "\"><svg/onload=alert(1)>"


def xss_bundle() -> dict:
    history = [{"role": role, "content": payload, "created_at": 1}
               for role, payload in zip(["user", "assistant"] * len(XSS), XSS, strict=False)]
    return {
        "format": "skill-workspace/1",
        "agent": {"name": "Mallory", "title": "{name} <script>alert('title')</script>",
                  "message_mode": "sequence"},
        "skills": [
            {"d_tag": "evil", "name": "<img src=x onerror=alert('name')>", "triggers": ["dm"],
             "content": "system:\n# Evil\n" + CORPUS + "\n\n{{payload}}\n{{evil_tool}}\n"
                        "{{" + EVIL_TAG + "}}\n{{message}}\n{{trigger_event}}\n---template---\n"
                        "- section: history\n  role: expand\n  tool: dm_history\n"},
            {"d_tag": EVIL_TAG, "name": "tag", "layer": 2, "content": CORPUS},
        ],
        "tools": [
            {"name": "evil_tool", "description": "<script>alert('description')</script>",
             "result": {"success": True, "content": json.dumps({"html": XSS, "nested": {
                 "k<script>": "<img src=x onerror=alert('key')>"}})}},
        ],
        "variables": [{"name": "payload", "tool": "evil_tool", "format": "json_block"}],
        "scenarios": [{"name": "<b>evil scenario</b>", "trigger": "dm",
                       "message": CORPUS, "history": history,
                       "event": {"content": "<script>alert('event')</script>", "tags": XSS[:3]}}],
    }


@pytest.fixture
def mallory(app):
    """An agent whose every text field is an XSS payload."""
    with app.app_context():
        store.import_bundle(db.get_session(), load_bundle(xss_bundle()))
    return "Mallory"


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
