"""HTML and JSON answers are compressed when the client accepts it, with `Vary` kept."""

from __future__ import annotations

import gzip

import brotli
import pytest

from tests.support.pages import HTMX, without_time

EDITOR = "/agents/Simon/skills/chat"


@pytest.mark.parametrize("encoding, decode", [("br", brotli.decompress),
                                              ("gzip", gzip.decompress)])
def test_pages_and_fragments_are_compressed(client, simon, encoding, decode):
    plain = client.get(EDITOR, headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in plain.headers
    for headers in ({}, HTMX):
        response = client.get(EDITOR, headers={**headers, "Accept-Encoding": encoding})
        assert response.headers["Content-Encoding"] == encoding
        vary = {v.strip() for v in response.headers["Vary"].split(",")}
        assert {"HX-Request", "Accept-Encoding"} <= vary
        body = decode(response.data)
        expected = plain.data if not headers else client.get(
            EDITOR, headers={**headers, "Accept-Encoding": "identity"}).data
        assert without_time(body) == without_time(expected)
        assert len(response.data) * 3 < len(body)


def test_a_draft_preview_is_compressed_too(client, simon, csrf):
    response = client.post(f"{EDITOR}/preview", data={"csrf_token": csrf, "content": "x" * 5000},
                           headers={**HTMX, "Accept-Encoding": "br"})
    assert response.status_code == 200 and response.headers["Content-Encoding"] == "br"
    assert b"xxxxx" in brotli.decompress(response.data)


def test_a_download_decodes_to_the_same_file(client, simon):
    plain = client.get("/agents/Simon/bundle", headers={"Accept-Encoding": "identity"}).data
    response = client.get("/agents/Simon/bundle", headers={"Accept-Encoding": "br"})
    assert response.headers["Content-Disposition"].startswith("attachment")
    body = brotli.decompress(response.data) if "Content-Encoding" in response.headers \
        else response.data
    assert body == plain
