"""Importing a skills repository in a real browser: choose the zip, preview it in place
(the file stays chosen), read each skill's status, a diff and a client's problem, then
import, and find the skills with their files."""

from __future__ import annotations

import zipfile

import pytest

from tests.support.folders import crowded_skill, repository, zipped
from webapp.agentskills import MAX_FILES

pytestmark = pytest.mark.browser


def test_preview_then_import_a_repository(context, live_server, tmp_path, screenshots):
    from playwright.sync_api import expect

    errors: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    # A repository with Simon's chat, exported and changed, beside three new skills.
    with page.expect_download() as download:
        page.goto(f"{live_server}/transfer?agent=Simon")
        page.get_by_role("link", name="chat", exact=True).click()
    with zipfile.ZipFile(download.value.path()) as archive:
        chat = archive.read("chat/SKILL.md").decode().replace("using tools", "with tools")
    entries = repository()
    entries["skills-main/skills/chat/SKILL.md"] = chat.encode()
    upload = tmp_path / "skills-main.zip"
    upload.write_bytes(zipped(entries))

    page.goto(f"{live_server}/transfer?agent=Simon")
    page.evaluate("window.__sameDocument = true")
    expect(page.get_by_label("Agent", exact=True)).to_have_value("Simon")
    page.get_by_label("SKILL.md or zip").set_input_files(str(upload))
    page.get_by_role("button", name="Preview the import").click()

    preview = page.locator("#skill-import-preview")
    expect(preview).to_contain_text("Preview: 4 skills for Simon")
    rows = preview.locator("table.import-plan tbody tr")
    expect(rows).to_have_count(4)
    expect(rows.filter(has_text="pdf")).to_contain_text("new")
    expect(rows.filter(has_text="chat")).to_contain_text("updated")
    expect(preview).to_contain_text("doc-coauthoring: 1 problem for its clients")
    preview.get_by_text("What changes in chat").click()
    expect(preview.locator("table.diff-unified tr.line-add .word-changed")).to_have_text("with")
    assert page.evaluate("window.__sameDocument") is True  # previewed in place
    page.screenshot(path=str(screenshots / "skill-import-preview.png"), full_page=True)

    page.get_by_role("button", name="Import 4 skills").click()
    expect(page.get_by_text("Imported 4 skills into Simon (new: 3, updated: 1, unchanged: 0)."
                            )).to_be_visible()
    page.goto(f"{live_server}/agents/Simon/skills/pdf/files")
    for path in ("scripts/fill_fillable_fields.py", "références/überblick.md"):
        expect(page.get_by_role("link", name=path, exact=True)).to_be_visible()
    assert errors == []


def test_a_partial_import_is_previewed_skill_by_skill(context, live_server, tmp_path):
    """A skill over its limits is marked left out, with why, and the others import."""
    from playwright.sync_api import expect

    page = context.new_page()
    upload = tmp_path / "skills-main.zip"
    upload.write_bytes(zipped({**repository(),
                               **crowded_skill("skills-main/skills/crowded", MAX_FILES)}))
    page.goto(f"{live_server}/transfer?agent=Partial")
    page.get_by_label("SKILL.md or zip").set_input_files(str(upload))
    page.get_by_role("button", name="Preview the import").click()

    plan = page.get_by_role("table", name="What the import does")
    expect(plan.get_by_role("row")).to_have_count(5)  # the header and four skills
    expect(plan.get_by_role("row", name="pdf")).to_contain_text("new")
    expect(plan.get_by_role("row", name="crowded")).to_contain_text("left out")
    expect(page.get_by_role("status")).to_contain_text(
        "1 of them cannot be imported and will be left out")
    reasons = page.get_by_role("list", name="Why crowded is left out")
    expect(reasons).to_contain_text(f"is one file too many: a skill's folder holds at most "
                                    f"{MAX_FILES} files")

    page.get_by_role("button", name="Import 3 skills").click()
    expect(page.get_by_text("Imported 3 skills into the new agent Partial (new: 3, updated: "
                            "0, unchanged: 0, left out: 1). Left out, as the preview said "
                            "why: crowded.")).to_be_visible()
