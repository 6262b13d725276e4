"""A compressed answer keeps the API's promises: the decoded body is the bundle byte for
byte, and the ETag a client got with it revalidates to a 304."""

from __future__ import annotations

import gzip
import hashlib

import brotli
import pytest

URL = "/api/v1/agents/Simon/snapshots/production"
DECODE = {"gzip": gzip.decompress, "br": brotli.decompress}


@pytest.mark.parametrize("encoding", ["gzip", "br"])
def test_a_compressed_snapshot_revalidates(client, published, token, encoding):
    headers = {**token("read"), "Accept-Encoding": encoding}
    response = client.get(URL, headers=headers)
    assert response.headers["Content-Encoding"] == encoding
    body = DECODE[encoding](response.data)
    digest = hashlib.sha256(body).hexdigest()
    assert response.headers["X-Snapshot-Number"] == "2"
    again = client.get(URL, headers={**headers, "If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304
    assert digest in response.headers["ETag"]
