"""A snapshot's skill folders over the runtime API: a repository at real size imported,
published, listed and fetched file by file (by path and by sha256) and as a zip, byte for
byte with its modes; ETags, 304s and caching; and what a key may not see."""

from __future__ import annotations

import hashlib
import io
import zipfile

import pytest

from tests.support.folders import published_repository, skill_files, unzipped

FILES = "/api/v1/agents/{agent}/snapshots/{ref}/skills/{d_tag}/files"
BLOB = "/api/v1/agents/{agent}/blobs/{sha256}"
ZIP = "/api/v1/agents/{agent}/snapshots/{ref}/skills/{d_tag}/folder.zip"
SKILLS = ("canvas-design", "doc-coauthoring", "docx", "mcp-builder", "pdf")


@pytest.fixture
def docs(app) -> dict[str, object]:
    """The real-size repository imported into `Docs` and published as #1 (production)."""
    return published_repository(app)


@pytest.mark.parametrize("d_tag", SKILLS)
def test_a_runtime_mirrors_each_folder_byte_for_byte(client, docs, token, d_tag):
    headers = token("read", agent="Docs")
    listed = client.get(FILES.format(agent="Docs", ref="production", d_tag=d_tag),
                        headers=headers)
    assert listed.status_code == 200 and listed.headers["Cache-Control"] == "no-cache"
    body = listed.get_json()
    assert (body["skill"], body["folder"], body["snapshot"]) == (d_tag, d_tag, 1)
    assert body["files"][0]["path"] == "SKILL.md" and body["files"][0]["blob_url"] is None
    mirrored, modes = {}, {}
    for file in body["files"]:
        by_path = client.get(file["url"], headers=headers)
        assert by_path.status_code == 200 and by_path.headers["ETag"] == f'"{file["sha256"]}"'
        assert hashlib.sha256(by_path.data).hexdigest() == file["sha256"]
        assert len(by_path.data) == file["size"]
        assert by_path.headers["X-File-Mode"] == ("755" if file["executable"] else "644")
        if file["blob_url"] is not None:
            assert client.get(file["blob_url"], headers=headers).data == by_path.data
        mirrored[file["path"]] = by_path.data
        modes[file["path"]] = file["executable"]
    assert mirrored == skill_files(docs, d_tag)
    executable = {path.rpartition(f"skills/{d_tag}/")[2] for path, data in docs.items()
                  if f"skills/{d_tag}/" in path and isinstance(data, tuple) and data[1]}
    assert {path for path, flag in modes.items() if flag} == executable


def test_a_skill_folder_downloads_as_a_zip_for_a_label(client, docs, token):
    answer = client.get(ZIP.format(agent="Docs", ref="production", d_tag="docx"),
                        headers=token("read", agent="Docs"))
    assert answer.status_code == 200 and answer.mimetype == "application/zip"
    assert "docx.zip" in answer.headers["Content-Disposition"]
    assert {path.removeprefix("docx/"): data for path, data in unzipped(answer.data).items()
            } == skill_files(docs, "docx")
    with zipfile.ZipFile(io.BytesIO(answer.data)) as archive:
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in archive.infolist()}
    assert modes["docx/ooxml/scripts/pack.sh"] == 0o755 and modes["docx/SKILL.md"] == 0o644


def test_a_file_by_sha256_is_immutable_and_revalidates(client, docs, token):
    headers = token("read", agent="Docs")
    sha256 = hashlib.sha256(skill_files(docs, "canvas-design")["LICENSE.txt"]).hexdigest()
    url = BLOB.format(agent="Docs", sha256=sha256)
    first = client.get(url, headers=headers)
    assert first.status_code == 200
    assert first.headers["Cache-Control"] == "private, max-age=31536000, immutable"
    again = client.get(url, headers={**headers, "If-None-Match": f'"{sha256}"'})
    assert again.status_code == 304 and again.data == b""
    numbered = client.get(FILES.format(agent="Docs", ref="1", d_tag="pdf"), headers=headers)
    assert numbered.headers["Cache-Control"] == "private, max-age=31536000, immutable"


@pytest.mark.parametrize("url, status", [
    (BLOB.format(agent="Docs", sha256="0" * 64), 404),
    (BLOB.format(agent="Docs", sha256="NOT-A-SHA"), 404),
    (FILES.format(agent="Docs", ref="production", d_tag="nothing"), 404),
    (FILES.format(agent="Docs", ref="9", d_tag="pdf"), 404),
    (FILES.format(agent="Docs", ref="production", d_tag="pdf") + "/nothing.md", 404),
    (FILES.format(agent="Docs", ref="production", d_tag="pdf") + "/../SKILL.md", 404),
])
def test_what_is_not_there_is_a_404_problem(client, docs, token, url, status):
    answer = client.get(url, headers=token("read", agent="Docs"))
    assert answer.status_code == status and answer.mimetype == "application/problem+json"


def test_a_key_sees_only_its_agents_files(client, docs, token, published):
    sha256 = hashlib.sha256(skill_files(docs, "canvas-design")["LICENSE.txt"]).hexdigest()
    other = token("read", agent="Simon")
    assert client.get(BLOB.format(agent="Docs", sha256=sha256), headers=other).status_code == 404
    assert client.get(BLOB.format(agent="Simon", sha256=sha256),
                      headers=other).status_code == 404
    no_read = token("assemble", agent="Docs")
    assert client.get(FILES.format(agent="Docs", ref="1", d_tag="pdf"),
                      headers=no_read).status_code == 403
    assert client.get(BLOB.format(agent="Docs", sha256=sha256)).status_code == 401
