"""A compressed answer keeps the API's promises: the decoded body is the bundle byte for
byte, its ETag is `"<digest>"` (the sha256 of that body) whatever the encoding, and
`If-None-Match` with the tag, strong or weak, revalidates to a 304."""

from __future__ import annotations

import gzip
import hashlib

import brotli
import pytest

URL = "/api/v1/agents/Simon/snapshots/production"
DECODE = {"gzip": gzip.decompress, "br": brotli.decompress, "identity": lambda data: data}


@pytest.mark.parametrize("encoding", ["gzip", "br", "identity"])
def test_the_etag_is_the_digest_of_the_decoded_body(client, published, token, encoding):
    headers = {**token("read"), "Accept-Encoding": encoding}
    response = client.get(URL, headers=headers)
    assert response.headers.get("Content-Encoding", "identity") == encoding
    body = DECODE[encoding](response.data)
    assert response.headers["ETag"] == f'"{hashlib.sha256(body).hexdigest()}"'
    assert response.headers["X-Snapshot-Number"] == "2"
    assert response.headers["Vary"] == "Accept-Encoding, Authorization"
    again = client.get(URL, headers={**headers, "If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    assert again.headers["ETag"] == response.headers["ETag"]
    assert again.headers["Vary"] == "Accept-Encoding, Authorization"


@pytest.mark.parametrize(("sent", "status"), [
    ('W/"{digest}"', 304), ('"{digest}"', 304), ('"other", W/"{digest}"', 304), ("*", 304),
    ('"{digest}:gzip"', 200), ('"other"', 200)])
def test_if_none_match_compares_weakly(client, published, token, sent, status):
    headers = {**token("read"), "Accept-Encoding": "gzip"}
    digest = client.get(URL, headers=headers).headers["ETag"].strip('"')
    answer = client.get(URL, headers={**headers, "If-None-Match": sent.format(digest=digest)})
    assert answer.status_code == status
