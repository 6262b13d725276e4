"""Skill folders on the snapshot pages: each skill's folder downloads as a zip, by number
or label, byte for byte; Compare shows a file-only change with its text diff."""

from __future__ import annotations

import html
import re

from tests.support.folders import published_repository, skill_files, unzipped
from webapp import store
from webapp.schema import db


def test_the_snapshot_page_links_each_skill_folder_as_a_zip(app, client):
    entries = published_repository(app)
    page = client.get("/agents/Docs/snapshots/1").data.decode()
    [href] = re.findall(r'<a href="([^"]+)" download>Download docx\.zip</a>', page)
    answer = client.get(html.unescape(href))
    assert answer.status_code == 200 and answer.mimetype == "application/zip"
    assert {path.removeprefix("docx/"): data for path, data in unzipped(answer.data).items()
            } == skill_files(entries, "docx")
    by_label = client.get("/agents/Docs/snapshots/production/skills/docx/folder.zip")
    assert by_label.data == answer.data
    assert client.get("/agents/Docs/snapshots/production/skills/none/folder.zip"
                      ).status_code == 404


def test_compare_shows_a_file_only_change(app, client):
    published_repository(app)
    with app.app_context():
        store.save_file(db.get_session(), "Docs", "docx", "docx-js.md",
                        b"# docx-js\n\nOne line end.\n", expected_version=1)
    panel = client.get("/agents/Docs/snapshots/compare/skill?a=1&b=draft&d_tag=docx")
    text = panel.data.decode()
    assert panel.status_code == 200
    assert 'aria-label="Files of docx that changed"' in text
    assert "docx-js.md" in text and "One line end." in text
