"""Skill folders in snapshots: a `skill-workspace/2` bundle holds every byte of each
skill's folder, a file-only change is a new snapshot, Compare shows it, and a bundle
exported and imported again keeps every byte and mode."""

from __future__ import annotations

import copy

import pytest

from tests.support.folders import real_repository, skill_files, unzipped, zipped
from webapp import store
from webapp.agentskills import read_zip, zip_folders
from webapp.pipeline import parse_json
from webapp.views.snapshots import skill_diff

REAL = ("canvas-design", "doc-coauthoring", "docx", "mcp-builder", "pdf")


def folders_of(zipped_folders: bytes, folder: str) -> dict[str, bytes]:
    exported = unzipped(zipped_folders)
    return {path.removeprefix(f"{folder}/"): data for path, data in exported.items()
            if path.startswith(f"{folder}/")}


def test_a_snapshot_holds_every_byte_of_every_folder(session):
    entries = real_repository()
    store.import_skills(session, "Docs", read_zip(zipped(entries)))
    snapshot = store.publish(session, "Docs", "first", expected_latest=0)
    bundle = parse_json(snapshot.bundle)
    assert bundle["format"] == "skill-workspace/2"
    docx = next(s for s in bundle["skills"] if s["d_tag"] == "docx")
    assert docx["crlf"] and docx["frontmatter"].startswith("---\nname: docx\n")
    assert {f["path"]: f["executable"] for f in docx["files"]}["ooxml/scripts/pack.sh"]
    published = zip_folders(store.published_folders(session, snapshot))
    for folder in REAL:
        assert folders_of(published, folder) == skill_files(entries, folder)
    assert not store.has_unpublished_changes(session, "Docs")


def test_a_file_only_change_is_a_new_snapshot_and_compare_shows_it(session):
    store.import_skills(session, "Docs", read_zip(zipped(real_repository())))
    store.publish(session, "Docs", "first", expected_latest=0)
    row = store.save_file(session, "Docs", "docx", "docx-js.md",
                          b"# docx-js\n\nOne line end.\n", expected_version=1)
    store.delete_file(session, "Docs", "docx", "templates/template.docx",
                      expected_version=row.version)
    assert store.has_unpublished_changes(session, "Docs")
    a, b = store.read_side(session, "Docs", "1"), store.read_side(session, "Docs", "draft")
    [change] = store.differences(a, b).skills
    assert (change.d_tag, change.state, change.fields, change.text_changed) == (
        "docx", "changed", [], False)
    view = skill_diff(change, set())
    assert [(f.path, f.change) for f in view.files] == [
        ("docx-js.md", "changed"), ("templates/template.docx", "removed")]
    assert view.files[0].diff is not None and view.files[0].diff.changed
    second = store.publish(session, "Docs", "files", expected_latest=1)
    assert second.number == 2 and not store.has_unpublished_changes(session, "Docs")


def test_a_bundle_exported_and_imported_keeps_every_byte_and_mode(session):
    entries = real_repository()
    store.import_skills(session, "Docs", read_zip(zipped(entries)))
    bundle = store.export_bundle(session, "Docs")
    store.import_bundle(session, bundle, agent_name="Copy")
    copied = zip_folders(store.export_folders(session, "Copy"))
    for folder in REAL:
        assert folders_of(copied, folder) == skill_files(entries, folder)
    assert unzipped(copied).keys() == unzipped(
        zip_folders(store.export_folders(session, "Docs"))).keys()
    assert store.export_bundle(session, "Copy")["skills"] == bundle["skills"]


def test_a_version_1_bundle_over_an_agent_keeps_its_files(session):
    store.import_skills(session, "Docs", read_zip(zipped(real_repository())))
    bundle = store.export_bundle(session, "Docs")
    bundle["format"] = "skill-workspace/1"
    for skill in bundle["skills"]:
        for key in ("frontmatter", "crlf", "files"):
            del skill[key]
    store.import_bundle(session, bundle, replace=True)
    assert len(store.get_skill(session, "Docs", "canvas-design").files) == 3


def test_a_version_2_bundle_is_checked_as_every_file_set_is(session):
    store.import_skills(session, "Docs", read_zip(zipped(real_repository())))
    bundle = store.export_bundle(session, "Docs")
    bad_head = copy.deepcopy(bundle)
    bad_head["skills"][0]["frontmatter"] = "name: no fences\n"
    with pytest.raises(store.ValidationError) as caught:
        store.import_bundle(session, bad_head, agent_name="Copy")
    assert caught.value.problems == [
        ("$.skills[0].frontmatter", "frontmatter: SKILL.md must start with a line '---' "
                                    "opening the YAML frontmatter")]
    bad_path = copy.deepcopy(bundle)
    bad_path["skills"][0]["files"][0]["path"] = "../outside"
    with pytest.raises(store.ValidationError) as caught:
        store.import_bundle(session, bad_path, agent_name="Copy")
    assert caught.value.problems == [
        ("$.skills[0].files/../outside",
         "holds a '.' or '..' part: a path stays inside the skill's folder")]
    assert [row.name for row in store.list_agents(session)] == ["Docs"]
