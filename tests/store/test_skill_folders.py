"""A skill's folder kept in the database: imported as one change, versioned with the skill,
exported byte for byte, and every refusal leaving nothing half-written."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import func, select

from tests.support.folders import (
    LONG_DESCRIPTION,
    PDF_SKILL_MD,
    crowded_skill,
    real_repository,
    repository,
    skill_files,
    unzipped,
    zipped,
)
from webapp import agentskills, store
from webapp.agentskills import MAX_FILES, SkillFile, read_zip, zip_folders
from webapp.schema import db, models

SKILLS = ("pdf", "mcp-builder", "doc-coauthoring")


def counts(session) -> tuple[int, ...]:
    return tuple(session.scalar(select(func.count()).select_from(model)) for model in (
        models.Agent, models.Skill, models.SkillRevision, models.SkillBlob, models.Activity))


def test_a_repository_imports_into_a_new_agent_and_exports_byte_for_byte(session):
    entries = repository()
    plan = store.import_skills(session, "Docs", read_zip(zipped(entries)))
    assert plan.new_agent and plan.summary == "new: 3, updated: 0, unchanged: 0"
    assert [row.d_tag for row in store.list_skills(session, "Docs")] == [
        "doc-coauthoring", "mcp-builder", "pdf"]
    coauthoring = store.get_skill(session, "Docs", "doc-coauthoring")
    assert coauthoring.description == LONG_DESCRIPTION and coauthoring.crlf
    exported = unzipped(zip_folders(store.export_folders(session, "Docs")))
    for folder in SKILLS:
        assert {path.removeprefix(f"{folder}/"): data for path, data in exported.items()
                if path.startswith(f"{folder}/")} == skill_files(entries, folder)
    kinds = [row.kind for row in store.list_activity(session, agent="Docs")]
    assert sorted(kinds) == ["agent.create", "skill.import"]


def test_a_re_import_changes_nothing_and_a_newer_skill_md_is_a_new_version(session):
    store.import_skills(session, "Docs", read_zip(zipped(repository())))
    before = counts(session)
    again = store.import_skills(session, "Docs", read_zip(zipped(repository())))
    assert again.summary == "new: 0, updated: 0, unchanged: 3" and counts(session) == before

    newer = repository()
    newer["skills-main/skills/pdf/SKILL.md"] = PDF_SKILL_MD.replace(
        "read FORMS.md", "read FORMS.md first").encode()
    newer["skills-main/skills/pdf/FORMS.md"] = b"# Forms, second edition\n"
    plan = store.import_skills(session, "Docs", read_zip(zipped(newer)))
    assert plan.summary == "new: 0, updated: 1, unchanged: 2"
    pdf = store.get_skill(session, "Docs", "pdf")
    assert pdf.version == 2 and "read FORMS.md first" in pdf.content
    old, new = (store.get_revision(session, "Docs", "pdf", v) for v in (1, 2))
    assert {e["path"]: e["size"] for e in old.files}["FORMS.md"] == len(
        skill_files(repository(), "pdf")["FORMS.md"])
    assert {e["path"] for e in old.files} == {e["path"] for e in new.files}

    store.restore_revision(session, "Docs", "pdf", 1, expected_version=2)
    restored = store.folder_of(session, store.get_skill(session, "Docs", "pdf"))
    assert {f.path: f.data for f in restored.files} == {
        path: data for path, data in skill_files(repository(), "pdf").items()
        if path != "SKILL.md"}


def test_an_editor_skill_exported_and_imported_again_is_unchanged(session, agent):
    folders = read_zip(zip_folders(store.export_folders(session, agent)))
    plan = store.import_skills(session, agent, folders)
    assert plan.summary == "new: 0, updated: 0, unchanged: 3"


def test_a_file_is_saved_and_deleted_as_versions_of_its_skill(session, agent):
    row = store.save_file(session, agent, "chat", "references/notes.md", b"# Notes\n",
                          expected_version=1)
    assert row.version == 2 and [e["path"] for e in row.files] == ["references/notes.md"]
    assert store.get_file(session, agent, "chat", "references/notes.md").data == b"# Notes\n"
    with pytest.raises(store.Conflict):
        store.save_file(session, agent, "chat", "a.md", b"", expected_version=1)
    row = store.delete_file(session, agent, "chat", "references/notes.md", expected_version=2)
    assert row.version == 3 and row.files == []
    assert [r.note for r in store.list_revisions(session, agent, "chat")][:2] == [
        "file references/notes.md deleted", "file references/notes.md added"]
    # A save of the text keeps the files, and its revision records them.
    store.save_file(session, agent, "chat", "x.bin", b"\x00\xff", expected_version=3)
    store.save_skill(session, agent, "chat", expected_version=4, content="new text\n")
    assert store.get_revision(session, agent, "chat", 5).files == store.get_skill(
        session, agent, "chat").files != []


@pytest.mark.parametrize("path, message", [
    ("../x", "holds a '.' or '..' part: a path stays inside the skill's folder"),
    ("SKILL.md", "is the skill's SKILL.md, which is its text, not a file beside it"),
])
def test_a_file_the_path_rule_refuses(session, agent, path, message):
    with pytest.raises(store.ValidationError) as caught:
        store.save_file(session, agent, "chat", path, b"x", expected_version=1)
    assert caught.value.problems == [("path", message)]


def test_the_file_limit_holds_on_every_write(session, agent):
    for i in range(MAX_FILES - 1):
        row = store.save_file(session, agent, "chat", f"f{i:03}", b"", expected_version=i + 1)
    with pytest.raises(store.ValidationError) as caught:
        store.save_file(session, agent, "chat", "one-more", b"", expected_version=row.version)
    assert caught.value.problems == [
        ("files/one-more", f"is one file too many: a skill's folder holds at most {MAX_FILES} "
                           "files, SKILL.md included")]


def test_a_refused_import_writes_nothing(session, agent):
    folders = read_zip(zipped(repository()))
    lookalike = dataclasses.replace(folders[0], skill=dataclasses.replace(
        folders[0].skill, d_tag="ｃhat"), source="skills-main/skills/chat")  # fullwidth c
    before = counts(session)
    with pytest.raises(store.ValidationError) as caught:
        store.import_skills(session, agent, [lookalike])
    assert caught.value.problems == [
        ("skills-main/skills/chat", "its d_tag 'ｃhat' reads as the skill 'chat' of demo: give "
                                    "it that d_tag, or another")]
    assert counts(session) == before
    too_many = dataclasses.replace(folders[1], files=tuple(
        SkillFile(f"f{i}", b"") for i in range(MAX_FILES)))
    with pytest.raises(store.ValidationError) as caught:
        store.import_skills(session, "New", [too_many])
    assert caught.value.problems == [
        (f"skills-main/skills/mcp-builder/f{MAX_FILES - 1}",
         f"is one file too many: a skill's folder holds at most {MAX_FILES} files, SKILL.md "
         "included")]
    assert counts(session) == before


def test_an_import_takes_what_fits_and_names_what_it_left_out(session, agent):
    folders = read_zip(zipped(repository()))
    lookalike = dataclasses.replace(folders[0], skill=dataclasses.replace(
        folders[0].skill, d_tag="ｃhat"), source="skills-main/skills/chat")  # fullwidth c
    plan = store.import_skills(session, agent, [*folders, lookalike])
    assert plan.summary == "new: 3, updated: 0, unchanged: 0, left out: 1"
    [out] = plan.left_out
    assert (out.source, out.name, out.problems) == (
        "skills-main/skills/chat", "ｃhat",
        (("skills-main/skills/chat", "its d_tag 'ｃhat' reads as the skill 'chat' of demo: "
                                     "give it that d_tag, or another"),))
    assert {row.d_tag for row in store.list_skills(session, agent)} == {
        "intro", "chat", "other", "doc-coauthoring", "mcp-builder", "pdf"}


def test_a_real_repository_imports_the_skills_that_fit(session):
    """Skills of over 1 MB import; one over the limits is left out, named, with why."""
    entries = {**real_repository(), **crowded_skill("skills-main/skills/crowded", MAX_FILES)}
    upload = read_zip(zipped(entries))
    preview = store.plan_import(session, "Docs", upload)
    plan = store.import_skills(session, "Docs", upload, token=preview.token)
    assert plan.summary == "new: 5, updated: 0, unchanged: 0, left out: 1"
    assert [out.name for out in plan.left_out] == ["crowded"]
    exported = unzipped(zip_folders(store.export_folders(session, "Docs")))
    for folder in ("canvas-design", "docx", "pdf"):
        assert {path.removeprefix(f"{folder}/"): data for path, data in exported.items()
                if path.startswith(f"{folder}/")} == skill_files(entries, folder)


def test_the_agent_wide_limit_holds(session):
    limits = agentskills.FolderLimits(agent_bytes=2_000_000)
    with db.make_sessionmaker(session.get_bind(), limits)() as limited:
        store.import_skills(limited, "Docs", read_zip(zipped(repository())))
        upload = read_zip(zipped(real_repository()))
        with pytest.raises(store.ValidationError) as caught:
            store.import_skills(limited, "Docs", upload)
        [(where, why)] = caught.value.problems
        assert where == "files" and why.endswith("more than the 2,000,000 it may hold")
        assert [row.d_tag for row in store.list_skills(limited, "Docs")] == [
            "doc-coauthoring", "mcp-builder", "pdf"]


def test_an_import_applies_only_the_plan_it_previewed(session, agent):
    folders = read_zip(zip_folders(store.export_folders(session, agent)))
    changed = [dataclasses.replace(f, skill=dataclasses.replace(f.skill, content="new\n"))
               if f.skill.d_tag == "chat" else f for f in folders]
    plan = store.plan_import(session, agent, changed)
    assert [item.status for item in plan.items] == ["updated", "unchanged", "unchanged"]
    store.save_skill(session, agent, "chat", expected_version=1, content="meanwhile\n")
    before = counts(session)
    with pytest.raises(store.StaleImport):
        store.import_skills(session, agent, changed, token=plan.token)
    assert counts(session) == before
    fresh = store.plan_import(session, agent, changed)
    store.import_skills(session, agent, changed, token=fresh.token)
    assert store.get_skill(session, agent, "chat").content == "new\n"


def test_a_skill_in_the_trash_comes_back_updated(session, agent):
    folders = read_zip(zip_folders(store.export_folders(session, agent)))
    store.delete_skill(session, agent, "other")
    plan = store.import_skills(session, agent, folders)
    assert [(i.d_tag, i.status, i.restored) for i in plan.items if i.d_tag == "other"] == [
        ("other", "updated", True)]
    assert not store.get_skill(session, agent, "other").deleted


def test_the_blobs_are_shared_and_go_with_their_agent(session):
    store.import_skills(session, "Docs", read_zip(zipped(repository())))
    license_files = [f for folder in store.export_folders(session, "Docs")
                     for f in folder.files if f.path == "LICENSE.txt"]
    assert len(license_files) == 2
    blobs = counts(session)[3]
    assert blobs == len({f.sha256 for folder in store.export_folders(session, "Docs")
                         for f in folder.files})
    store.delete_agent(session, "Docs")
    store.purge_agent(session, "Docs")
    assert counts(session)[3] == 0


def test_a_zip_of_a_skill_is_a_folder_import_of_one(session, agent):
    [folder] = agentskills.read_upload("pdf.zip", zipped({
        "pdf/SKILL.md": PDF_SKILL_MD.encode(), "pdf/FORMS.md": b"forms\n"}))
    store.import_skills(session, agent, [folder])
    assert store.get_file(session, agent, "pdf", "FORMS.md").data == b"forms\n"


def test_a_snapshot_publishes_the_folders_of_the_versions_it_recorded(session):
    """`published_folders` reads each skill of a snapshot with the SKILL.md head and files
    of the version the snapshot recorded, not the skill as it is now."""
    store.import_skills(session, "Docs", read_zip(zipped(repository())))
    snapshot = store.publish(session, "Docs", "first", 0)
    pdf = store.get_skill(session, "Docs", "pdf")
    store.save_file(session, "Docs", "pdf", "FORMS.md", b"# Changed after publishing\n",
                    expected_version=pdf.version)
    folders = {folder.skill.d_tag: folder for folder in store.published_folders(session, snapshot)}
    assert sorted(folders) == sorted(SKILLS)
    published = {f.path: f.data for f in folders["pdf"].files}
    assert published == {path: data for path, data in skill_files(repository(), "pdf").items()
                         if path != "SKILL.md"}
    assert published["FORMS.md"] != b"# Changed after publishing\n"
    assert folders["doc-coauthoring"].crlf and folders["pdf"].head


def test_a_skill_md_with_mixed_line_ends_exports_its_bytes_and_keeps_them_across_a_save(session):
    data = (b"---\r\nname: mixed\ndescription: Mixed\r\nmetadata:\n  owner: 'crew'\r\n---\r\n\n"
            b"one\r\ntwo\nthree\r\n")
    store.import_skills(session, "Docs", agentskills.read_upload("SKILL.md", data))
    row = store.get_skill(session, "Docs", "mixed")
    assert not row.crlf and row.line_ends
    exported = unzipped(zip_folders(store.export_folders(session, "Docs")))
    assert exported["mixed/SKILL.md"] == data
    ends = row.line_ends
    store.save_skill(session, "Docs", "mixed", expected_version=row.version,
                     content=row.content, layer=2)
    assert store.get_revision(session, "Docs", "mixed", 2).line_ends == ends
    exported = unzipped(zip_folders(store.export_folders(session, "Docs")))
    assert exported["mixed/SKILL.md"] == data.replace(
        b"  owner: 'crew'\r\n", b"  owner: 'crew'\r\n  layer: '2'\r\n")


def test_a_revision_restored_obeys_the_limits_of_today(session, agent):
    for i in range(3):
        store.save_file(session, agent, "chat", f"f{i}.md", b"x", expected_version=i + 1)
    for i in range(3):
        store.delete_file(session, agent, "chat", f"f{i}.md", expected_version=i + 4)
    limits = agentskills.FolderLimits(files=3)
    with db.make_sessionmaker(session.get_bind(), limits)() as limited:
        with pytest.raises(store.ValidationError) as caught:
            store.restore_revision(limited, agent, "chat", 4, expected_version=7)
        assert caught.value.problems == [
            ("files/f2.md", "is one file too many: a skill's folder holds at most 3 files, "
                            "SKILL.md included")]
        store.restore_revision(limited, agent, "chat", 3, expected_version=7)


def test_mixed_line_ends_survive_a_bundle_and_a_snapshot(session):
    """A `/2` bundle carries each line's end (`line_ends`): the SKILL.md comes back byte
    for byte from another agent that imported the bundle, and from a published snapshot."""
    data = b"---\r\nname: mixed\ndescription: Mixed\r\n---\r\n\none\r\ntwo\nthree\r\n"
    store.import_skills(session, "Docs", agentskills.read_upload("SKILL.md", data))
    bundle = store.export_bundle(session, "Docs")
    assert bundle["skills"][0]["line_ends"]
    bundle["agent"]["name"] = "Copy"
    store.import_bundle(session, bundle)
    copied = unzipped(zip_folders(store.export_folders(session, "Copy")))
    assert copied["mixed/SKILL.md"] == data
    snapshot = store.publish(session, "Copy", "first", 0)
    [folder] = store.published_folders(session, snapshot)
    assert agentskills.encode_skill_md(folder.skill, folder.head, folder.crlf,
                                       folder.line_ends) == data
    assert not store.has_unpublished_changes(session, "Copy")
