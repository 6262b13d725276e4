"""`skill-editor skills import` and `export`: a repository in (zip or folder, a dry run
first), out as a zip or as folders, byte for byte, and every refusal writing nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.folders import (
    PDF_SKILL_MD,
    real_repository,
    repository,
    skill_files,
    unzipped,
    zipped,
)
from webapp import store
from webapp.cli import main
from webapp.schema import db

SKILLS = ("doc-coauthoring", "mcp-builder", "pdf")


@pytest.fixture
def run(database_url):
    """Invoke the CLI on the test database; returns click's Result."""
    runner = CliRunner()
    return lambda *args: runner.invoke(main, [*args, "--database-url", database_url],
                                       catch_exceptions=False)


def write_tree(top: Path, entries: dict[str, object]) -> None:
    for name, data in entries.items():
        if not isinstance(data, (bytes, tuple)):
            continue  # the repository's link: made below where a test needs one
        path = top / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data[0] if isinstance(data, tuple) else data)
        if isinstance(data, tuple) and data[1]:
            path.chmod(0o755)


def skill_count(url: str, agent: str) -> int:
    with db.session_scope(url) as session:
        return len(store.list_skills(session, agent))


def test_a_dry_run_prints_the_preview_and_writes_nothing(run, database_url, tmp_path):
    repo = tmp_path / "repo.zip"
    repo.write_bytes(zipped(repository()))
    result = run("skills", "import", str(repo), "--agent", "Docs", "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[:2] == [
        "new       doc-coauthoring  (skills-main/skills/doc-coauthoring; 0 files, 0 bytes)",
        "          error description-too-long: the description is 1,068 characters (SKILL.md "
        "line 3): Agent Skills specification allows 1,024 characters."]
    assert "would import into the new agent 'Docs': new: 3, updated: 0, unchanged: 0 (dry run: " \
           "nothing was written)" in result.stderr
    with db.session_scope(database_url) as session:
        assert store.list_agents(session) == []


def test_import_export_and_import_again_from_folders(run, database_url, tmp_path):
    write_tree(tmp_path / "checkout", repository())
    os.symlink("README.md", tmp_path / "checkout/skills-main/CLAUDE.md")  # outside the skills
    result = run("skills", "import", str(tmp_path / "checkout"), "--agent", "Docs")
    assert result.exit_code == 0, result.stderr
    assert "imported into the new agent 'Docs': new: 3" in result.stderr
    assert skill_count(database_url, "Docs") == 3

    out = tmp_path / "out"
    assert run("skills", "export", "--agent", "Docs", "-o", str(out)).exit_code == 0
    for folder in SKILLS:
        files = {p.relative_to(out / folder).as_posix(): p.read_bytes()
                 for p in (out / folder).rglob("*") if p.is_file()}
        assert files == skill_files(repository(), folder)
    assert os.access(out / "pdf/scripts/fill_fillable_fields.py", os.X_OK)

    again = run("skills", "import", str(out), "--agent", "Docs", "--dry-run")
    assert [line.split()[0] for line in again.stdout.splitlines()
            if not line.startswith(" ")] == ["unchanged"] * 3
    refused = run("skills", "export", "--agent", "Docs", "-o", str(out))
    assert refused.exit_code == 1 and "holds doc-coauthoring, mcp-builder, pdf already" in (
        refused.stderr)


def test_export_as_a_zip_and_a_newer_skill_md_alone(run, database_url, tmp_path):
    repo = tmp_path / "repo.zip"
    repo.write_bytes(zipped(repository()))
    run("skills", "import", str(repo), "--agent", "Docs")
    assert run("skills", "export", "--agent", "Docs", "-o", str(tmp_path / "docs.zip")
               ).exit_code == 0
    exported = unzipped((tmp_path / "docs.zip").read_bytes())
    assert exported["pdf/SKILL.md"] == PDF_SKILL_MD.encode()

    newer = tmp_path / "pdf" / "SKILL.md"
    newer.parent.mkdir()
    newer.write_text(PDF_SKILL_MD + "\nOne more step.\n")
    result = run("skills", "import", str(newer), "--agent", "Docs", "--dry-run")
    assert "updated   pdf" in result.stdout
    assert "          +One more step." in result.stdout
    assert run("skills", "import", str(newer), "--agent", "Docs").exit_code == 0
    with db.session_scope(database_url) as session:
        row = store.get_skill(session, "Docs", "pdf")
        assert row.version == 2 and len(row.files) == 8  # the files stay


def test_a_skill_holding_a_link_is_left_out_and_the_status_says_so(run, database_url,
                                                                   tmp_path):
    write_tree(tmp_path / "repo", {"pdf/SKILL.md": PDF_SKILL_MD.encode(),
                                   "docs/SKILL.md": PDF_SKILL_MD.replace("pdf", "docs").encode()})
    os.symlink("/etc/passwd", tmp_path / "repo/pdf/passwd")
    result = run("skills", "import", str(tmp_path / "repo"), "--agent", "Docs")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-2:] == [
        "left out  pdf  (repo/pdf): not imported",
        "          repo/pdf/passwd: is a link: a skill's folder holds files only"]
    assert result.stderr.splitlines()[-2:] == [
        "imported into the new agent 'Docs': new: 1, updated: 0, unchanged: 0, left out: 1",
        "left out: pdf (see above why)"]
    with db.session_scope(database_url) as session:
        assert [row.d_tag for row in store.list_skills(session, "Docs")] == ["docs"]


def test_a_folder_with_only_a_hostile_skill_is_refused_whole(run, database_url, tmp_path):
    write_tree(tmp_path / "repo", {"pdf/SKILL.md": PDF_SKILL_MD.encode()})
    os.symlink("/etc/passwd", tmp_path / "repo/pdf/passwd")
    result = run("skills", "import", str(tmp_path / "repo"), "--agent", "Docs")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"error: {tmp_path / 'repo'}: nothing was imported",
        "  repo/pdf/passwd: is a link: a skill's folder holds files only"]
    with db.session_scope(database_url) as session:
        assert store.list_agents(session) == []


def test_the_limits_come_from_the_environment(run, database_url, tmp_path, monkeypatch):
    repo = tmp_path / "repo.zip"
    repo.write_bytes(zipped(real_repository()))
    monkeypatch.setenv("SKILL_EDITOR_SKILL_MAX_BYTES", "1000000")
    result = run("skills", "import", str(repo), "--agent", "Docs", "--dry-run")
    assert result.exit_code == 1
    assert "left out  canvas-design  (skills-main/skills/canvas-design): not imported" in (
        result.stdout)
    assert result.stderr.splitlines()[-1] == "left out: canvas-design, docx (see above why)"
    monkeypatch.delenv("SKILL_EDITOR_SKILL_MAX_BYTES")
    assert run("skills", "import", str(repo), "--agent", "Docs").exit_code == 0
    with db.session_scope(database_url) as session:
        assert len(store.list_skills(session, "Docs")) == 5


def test_a_refusal_of_the_store_names_the_skill(run, database_url, tmp_path):
    repo = tmp_path / "repo.zip"
    repo.write_bytes(zipped({"x/SKILL.md": b"---\nname: x\nmetadata:\n  d_tag: " + b"y" * 201
                             + b"\n---\n"}))
    result = run("skills", "import", str(repo), "--agent", "Docs")
    assert result.exit_code == 1
    assert "  x/SKILL.md: metadata.d_tag: must be at most 200 characters" in result.stderr
