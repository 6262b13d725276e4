"""A skill's Files page: the files listed, a text file viewed and edited (its line ends
kept), a binary file downloaded byte for byte, a file uploaded and deleted, and every
refusal (a stale page, a path the rule refuses, a file it does not have)."""

from __future__ import annotations

import io
import re

import pytest

from tests.support.folders import BINARY, repository, zipped
from tests.support.pages import HTMX, fragment_root, is_page
from webapp import agentskills, store
from webapp.schema import db

FILES = "/agents/Docs/skills/pdf/files"


@pytest.fixture
def docs(app) -> str:
    """The agent Docs, holding the test repository's skills."""
    with app.app_context():
        store.import_skills(db.get_session(), "Docs",
                            agentskills.read_zip(zipped(repository())))
    return "Docs"


def pdf(app):
    with app.app_context():
        return store.folder_of(db.get_session(), store.get_skill(db.get_session(), "Docs", "pdf"))


def version(app) -> int:
    with app.app_context():
        return store.get_skill(db.get_session(), "Docs", "pdf").version


def test_the_files_are_listed_as_page_and_fragment(client, docs):
    response = client.get(FILES)
    assert response.status_code == 200 and is_page(response)
    html = response.data.decode()
    for path in ("FORMS.md", "scripts/fill_fillable_fields.py", "références/überblick.md",
                 "assets/logo.png", "templates/empty.txt"):
        assert f"<code>{path}</code>" in html, path
    assert "text, executable" in html and "binary" in html
    assert fragment_root(client.get(FILES, headers=HTMX)).startswith(b'<section id="skill-files"')
    editor = client.get("/agents/Docs/skills/pdf").data.decode()
    assert f'href="{FILES}"' in editor


def test_a_text_file_is_edited_as_a_new_version(app, client, docs, csrf):
    html = client.get(FILES, query_string={"path": "FORMS.md"}).data.decode()
    assert "Fill the fields in order." in html and "Save FORMS.md" in html
    # A browser sends a textarea with CRLF line ends: the file keeps its LF.
    response = client.post(FILES, data={"csrf_token": csrf, "version": "1", "path": "FORMS.md",
                                        "text": "# Forms\r\n\r\nNew order.\r\n"})
    assert response.status_code == 303
    assert {f.path: f.data for f in pdf(app).files}["FORMS.md"] == b"# Forms\n\nNew order.\n"
    assert version(app) == 2
    page = client.get(response.headers["Location"]).data.decode()
    assert "Saved FORMS.md as version 2 of pdf." in page


def test_a_crlf_file_keeps_its_line_ends(app, client, docs, csrf):
    html = client.get("/agents/Docs/skills/mcp-builder/files",
                      query_string={"path": "scripts/connections.py"}).data.decode()
    assert 'name="crlf" value="1"' in html and "This file has CRLF line ends" in html
    client.post("/agents/Docs/skills/mcp-builder/files", data={
        "csrf_token": csrf, "version": "1", "path": "scripts/connections.py", "crlf": "1",
        "text": "import asyncio\nimport json\n"})
    with app.app_context():
        file = store.get_file(db.get_session(), "Docs", "mcp-builder", "scripts/connections.py")
    assert file.data == b"import asyncio\r\nimport json\r\n" and file.executable


def test_a_binary_file_is_downloaded_byte_for_byte_and_not_edited(client, docs):
    html = client.get(FILES, query_string={"path": "assets/logo.png"}).data.decode()
    assert "A binary file of 1,032 bytes, kept byte for byte." in html and "<textarea" not in html
    response = client.get(f"{FILES}/raw", query_string={"path": "assets/logo.png"})
    assert response.status_code == 200 and response.data == b"\x89PNG\r\n\x1a\n" + BINARY
    assert response.headers["Content-Disposition"] == "attachment; filename=logo.png"


def test_a_file_is_uploaded_then_deleted(app, client, docs, csrf):
    response = client.post(FILES, data={
        "csrf_token": csrf, "version": "1", "path": "assets/new.bin",
        "file": (io.BytesIO(b"\x00\x01\x02"), "anything.bin")}, content_type="multipart/form-data")
    assert response.status_code == 303
    assert {f.path: f.data for f in pdf(app).files}["assets/new.bin"] == b"\x00\x01\x02"
    response = client.post(f"{FILES}/delete", data={"csrf_token": csrf, "version": "2",
                                                     "path": "assets/new.bin"})
    assert response.status_code == 303
    assert "assets/new.bin" not in {f.path for f in pdf(app).files}
    assert "Deleted assets/new.bin from pdf (version 3)." in (
        client.get(response.headers["Location"]).data.decode())


def test_a_stale_page_keeps_the_authors_text(app, client, docs, csrf):
    client.post(FILES, data={"csrf_token": csrf, "version": "1", "path": "FORMS.md",
                             "text": "first\n"})
    response = client.post(FILES, data={"csrf_token": csrf, "version": "1", "path": "FORMS.md",
                                        "text": "mine, from version 1\n"})
    assert response.status_code == 409
    html = response.data.decode()
    assert "pdf was saved meanwhile (it is at version 2)" in html
    assert "mine, from version 1" in html and 'name="version" value="2"' in html
    assert {f.path: f.data for f in pdf(app).files}["FORMS.md"] == b"first\n"


@pytest.mark.parametrize("path, where, reason", [
    ("../escape.md", "path", "holds a &#39;.&#39; or &#39;..&#39; part"),
    ("SKILL.md", "path", "is the skill&#39;s SKILL.md"),
    ("forms.md", "files/forms.md", "differs from &#39;FORMS.md&#39; only in letter case"),
])
def test_a_path_the_rule_refuses(client, docs, csrf, path, where, reason):
    response = client.post(FILES, data={"csrf_token": csrf, "version": "1", "path": path,
                                        "text": "x"})
    assert response.status_code == 422
    assert re.search(rf"<code>{re.escape(where)}</code>: {re.escape(reason)}",
                     response.data.decode())


def test_a_file_the_skill_does_not_have(client, docs, csrf):
    html = client.get(FILES, query_string={"path": "nope.md"}).data.decode()
    assert "pdf has no file <code>nope.md</code>." in html
    assert client.get(f"{FILES}/raw", query_string={"path": "nope.md"}).status_code == 404
    response = client.post(f"{FILES}/delete", data={"csrf_token": csrf, "version": "1",
                                                     "path": "nope.md"})
    assert response.status_code == 404


def test_a_skill_without_files(client, simon):
    html = client.get("/agents/Simon/skills/chat/files").data.decode()
    assert "chat has no files beside its SKILL.md." in html


def test_a_duplicate_keeps_the_files_and_exports_under_its_own_name(app, client, docs, csrf):
    response = client.post("/agents/Docs/skills/pdf/duplicate", data={"csrf_token": csrf})
    assert response.headers["Location"] == "/agents/Docs/skills/pdf-copy"
    with app.app_context():
        session = db.get_session()
        copy = store.folder_of(session, store.get_skill(session, "Docs", "pdf-copy"))
    assert {f.path: f.data for f in copy.files} == {f.path: f.data for f in pdf(app).files}
    exported = client.get("/agents/Docs/skills/pdf-copy/export").data
    text = agentskills.read_zip(exported)[0]
    assert text.skill.d_tag == "pdf-copy" and text.head.startswith("---\nname: pdf-copy\n")


def test_the_history_names_the_files_a_version_changed(client, docs, csrf):
    client.post(FILES, data={"csrf_token": csrf, "version": "1", "path": "FORMS.md",
                             "text": "changed\n"})
    html = client.get("/agents/Docs/skills/pdf/history").data.decode()
    assert re.search(r"<td>files</td><td class=\"line-del\">FORMS.md</td>"
                     r"<td class=\"line-add\">FORMS.md</td>", html)
    assert "file FORMS.md changed" in html  # the revision's note
