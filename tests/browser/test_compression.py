"""Compression seen from a real browser: the live preview's answer to a keystroke travels
compressed (brotli, which chromium asks for) and decodes to the HTML the same request gets
uncompressed."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest

from tests.support.browser import content_editor, open_page, type_at_end
from tests.support.pages import without_time

pytestmark = pytest.mark.browser


def typed(request) -> str:
    """The Content field a preview request posted."""
    return " ".join(parse_qs(request.post_data or "").get("content", []))


def test_a_keystroke_s_preview_is_sent_compressed_and_decodes_to_the_same_html(
        context, live_server):
    from playwright.sync_api import expect

    page = open_page(context, f"{live_server}/agents/Simon/skills/chat")
    expect(content_editor(page)).to_be_visible()
    # The answer to the last keystroke: the earlier ones may answer a part of the text.
    with page.expect_response(lambda r: r.request.method == "POST"
                              and r.url.split("?")[0].endswith("/chat/preview")
                              and "Compressed?" in typed(r.request)) as answer:
        type_at_end(page, "Compressed?")
    response = answer.value
    assert response.status == 200
    assert response.headers["content-encoding"] == "br"
    assert "accept-encoding" in response.headers["vary"].lower()
    decoded = response.body()
    sent = response.request.sizes()["responseBodySize"]
    assert 0 < sent * 3 < len(decoded)

    # The same request again, asking for no compression.
    headers = {name: value for name, value in response.request.all_headers().items()
               if not name.startswith(":") and name not in ("accept-encoding", "content-length")}
    plain = context.request.post(response.url, data=response.request.post_data_buffer,
                                 headers={**headers, "Accept-Encoding": "identity"})
    assert plain.status == 200
    assert "content-encoding" not in plain.headers
    assert without_time(decoded) == without_time(plain.body())
    assert b"Compressed?" in decoded
