"""Skill folders read from zips and written back: every file and byte kept, and every
hostile zip refused whole, with the entry it is about named."""

from __future__ import annotations

import dataclasses
import io
import zipfile

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.support.folders import (
    BINARY,
    BUILDER_SKILL_MD,
    COAUTHORING_SKILL_MD,
    FONT,
    LINK,
    LONG_DESCRIPTION,
    PDF_SKILL_MD,
    crowded_skill,
    executables,
    real_repository,
    repository,
    skill_files,
    unzipped,
    zipped,
)
from webapp.agentskills import (
    DEFAULT_LIMITS,
    IGNORED_NAMES,
    MAX_FILES,
    MAX_FILES_BYTES,
    FolderLimits,
    SkillFolder,
    SkillMdError,
    file_set_problems,
    folder_names,
    limits_from,
    parse_head,
    path_problem,
    read_upload,
    read_zip,
    zip_folders,
)
from webapp.pipeline import Skill


def refusal(data: bytes) -> list[tuple[str, str]]:
    with pytest.raises(SkillMdError) as caught:
        read_zip(data)
    return caught.value.problems


def test_a_repository_reads_as_its_skills_with_every_file():
    folders = read_zip(zipped(repository()))
    assert [(f.source, f.skill.d_tag) for f in folders] == [
        ("skills-main/skills/doc-coauthoring", "doc-coauthoring"),
        ("skills-main/skills/mcp-builder", "mcp-builder"),
        ("skills-main/skills/pdf", "pdf")]
    pdf = folders[2]
    assert {f.path for f in pdf.files} == set(skill_files(repository(), "pdf")) - {"SKILL.md"}
    assert {f.path for f in pdf.files if f.executable} == {
        "scripts/fill_fillable_fields.py", "scripts/check_bounding_boxes.py"}
    assert next(f for f in pdf.files if f.path == "assets/logo.png").data.endswith(BINARY)
    assert pdf.skill.description.startswith("Comprehensive PDF manipulation toolkit")
    coauthoring = folders[0]
    assert coauthoring.skill.description == LONG_DESCRIPTION and coauthoring.crlf


def test_zip_import_export_zip_keeps_every_file_byte_for_byte():
    entries = repository()
    exported = unzipped(zip_folders(read_zip(zipped(entries))))
    for folder in ("pdf", "mcp-builder", "doc-coauthoring"):
        assert {path.removeprefix(f"{folder}/"): data for path, data in exported.items()
                if path.startswith(f"{folder}/")} == skill_files(entries, folder)
    assert len(exported) == sum(len(skill_files(entries, f))
                                for f in ("pdf", "mcp-builder", "doc-coauthoring"))
    assert executables(zip_folders(read_zip(zipped(entries)))) == {
        "pdf/scripts/fill_fillable_fields.py", "pdf/scripts/check_bounding_boxes.py",
        "mcp-builder/scripts/connections.py"}


def test_the_export_is_deterministic():
    folders = read_zip(zipped(repository()))
    assert zip_folders(folders) == zip_folders(read_zip(zip_folders(folders)))


def test_frontmatter_keys_of_every_dialect_round_trip_in_order():
    [builder] = read_zip(zipped({"mcp-builder/SKILL.md": BUILDER_SKILL_MD.encode()}))
    data, lines = parse_head(builder.head)
    assert list(data) == ["name", "description", "license", "compatibility", "allowed-tools",
                          "argument-hint", "disable-model-invocation", "metadata"]
    assert lines["license"] == 5 and lines["metadata"] == 10
    assert unzipped(zip_folders([builder]))["mcp-builder/SKILL.md"] == BUILDER_SKILL_MD.encode()


def test_an_edited_field_rewrites_only_its_key():
    [builder] = read_zip(zipped({"mcp-builder/SKILL.md": BUILDER_SKILL_MD.encode()}))
    edited = dataclasses.replace(builder, skill=dataclasses.replace(
        builder.skill, description="Build MCP servers.", content="# New body\n"))
    text = unzipped(zip_folders([edited]))["mcp-builder/SKILL.md"].decode()
    assert text == BUILDER_SKILL_MD.replace(
        '"Guide for creating high-quality MCP servers: tools, resources and prompts."',
        "Build MCP servers.").replace(
        "# MCP Server Development Guide\n\nLoad [the best practices]"
        "(reference/mcp_best_practices.md) first.\n", "# New body\n")


def test_a_skill_of_the_editor_exports_with_derived_frontmatter_and_reads_back():
    skill = Skill(d_tag="Chat_Main", content="hi\n", name="Chat", triggers=("dm",))
    [folder] = read_zip(zip_folders([SkillFolder(skill)]))
    assert folder.skill == skill and folder.source == "chat-main"


def test_folder_names_stay_apart():
    skills = [Skill(d_tag=d, content="") for d in ("a_b", "a-b", "A B", "c")]
    assert folder_names(skills) == ["a-b", "a-b-2", "a-b-3", "c"]


def test_a_single_skill_md_upload_and_a_zip_of_one_folder():
    [alone] = read_upload("SKILL.md", PDF_SKILL_MD.encode())
    assert alone.skill.d_tag == "pdf" and alone.files == () and alone.source == "SKILL.md"
    [top] = read_upload("pdf.zip", zipped({"SKILL.md": PDF_SKILL_MD.encode(),
                                           "FORMS.md": b"forms"}))
    assert [f.path for f in top.files] == ["FORMS.md"]


def test_a_skill_md_deeper_in_a_skill_is_one_of_its_files():
    [folder] = read_zip(zipped({"pdf/SKILL.md": PDF_SKILL_MD.encode(),
                                "pdf/examples/other/SKILL.md": b"not a skill of its own"}))
    assert [f.path for f in folder.files] == ["examples/other/SKILL.md"]


@pytest.mark.parametrize("entries, expected", [
    ({"../evil/SKILL.md": PDF_SKILL_MD.encode()},
     [("../evil/SKILL.md", "holds a '..' part, which would point outside the upload")]),
    ({"pdf/SKILL.md": PDF_SKILL_MD.encode(), "pdf/../../etc/passwd": b"x"},
     [("pdf/../../etc/passwd", "holds a '..' part, which would point outside the upload")]),
    ({"/etc/pdf/SKILL.md": PDF_SKILL_MD.encode()},
     [("/etc/pdf/SKILL.md", "is absolute or holds a backslash or a NUL: nothing in an upload "
                            "is read")]),
    ({"pdf\\SKILL.md": PDF_SKILL_MD.encode()},
     [("pdf\\SKILL.md", "is absolute or holds a backslash or a NUL: nothing in an upload "
                        "is read")]),
    ({"C:/pdf/SKILL.md": PDF_SKILL_MD.encode()},
     [("C:/pdf/SKILL.md", "starts with a drive letter: nothing in an upload is read")]),
    ({"pdf/SKILL.md": PDF_SKILL_MD.encode(), "pdf/scripts/run.sh": LINK},
     [("pdf/scripts/run.sh", "is a link: a skill's folder holds files only")]),
    ({"pdf/SKILL.md": PDF_SKILL_MD.encode(), "pdf/Forms.md": b"a", "pdf/FORMS.md": b"b"},
     [("pdf/FORMS.md", "differs from 'Forms.md' only in letter case or Unicode form: they "
                       "would be one file on macOS and Windows")]),
    ({"pdf/SKILL.md": PDF_SKILL_MD.encode(), "pdf/é.md": b"a", "pdf/e\u0301.md": b"b"},
     [("pdf/e\u0301.md", "differs from 'é.md' only in letter case or Unicode form: they "
                         "would be one file on macOS and Windows")]),
    ({"pdf/SKILL.md": PDF_SKILL_MD.encode(), "pdf/skill.md": b"x"},
     [("pdf/skill.md", "is the skill's SKILL.md, which is its text, not a file beside it")]),
    ({"pdf/SKILL.md": PDF_SKILL_MD.encode(), "PDF/SKILL.md": PDF_SKILL_MD.encode()},
     [("pdf", "is the skill 'pdf', as PDF is ('pdf')")]),
])
def test_hostile_zips_are_refused_naming_the_entry(entries, expected):
    assert refusal(zipped(entries)) == expected


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_a_name_twice_in_one_zip_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("pdf/SKILL.md", PDF_SKILL_MD)
        archive.writestr("pdf/FORMS.md", "a")
        archive.writestr("pdf/FORMS.md", "b")
    assert refusal(buffer.getvalue()) == [("pdf/FORMS.md", "is in the upload twice")]


def test_ten_thousand_tiny_files_are_refused_at_the_limit():
    entries = {"pdf/SKILL.md": PDF_SKILL_MD.encode()}
    entries.update({f"pdf/f/{i:05}.txt": b"x" for i in range(10_000)})
    assert refusal(zipped(entries)) == [
        (f"pdf/f/{MAX_FILES - 1:05}.txt", f"is one file too many: a skill's folder holds at "
                                          f"most {MAX_FILES} files, SKILL.md included")]


def test_the_byte_limit_is_kept_at_its_edge():
    at_limit = {"pdf/SKILL.md": PDF_SKILL_MD.encode(), "pdf/a.bin": b"a" * (MAX_FILES_BYTES - 1),
                "pdf/b.bin": b"b"}
    [folder] = read_zip(zipped(at_limit))
    assert sum(f.size for f in folder.files) == MAX_FILES_BYTES
    over = {**at_limit, "pdf/c.bin": b"c"}
    assert refusal(zipped(over)) == [
        ("pdf/c.bin", f"passes the limit of {MAX_FILES_BYTES:,} bytes for the files beside "
                      "SKILL.md together")]


def _central(data: bytearray, name: str) -> int:
    """Where the zip's central directory record of `name` starts."""
    at = data.find(b"PK\x01\x02")
    while data[at + 46:at + 46 + len(name.encode())] != name.encode():
        at = data.find(b"PK\x01\x02", at + 4)
    return at


def test_a_zip_bomb_is_stopped_at_the_limit_whatever_the_directory_says():
    bomb = {"pdf/SKILL.md": PDF_SKILL_MD.encode(), "pdf/bomb.bin": b"\x00" * (MAX_FILES_BYTES * 8)}
    assert refusal(zipped(bomb)) == [
        ("pdf/bomb.bin", f"passes the limit of {MAX_FILES_BYTES:,} bytes for the files beside "
                         "SKILL.md together")]
    # A directory that says the bomb holds 1 byte: Python's zip stops there, where its
    # checksum fails.
    lying = bytearray(zipped(bomb))
    at = _central(lying, "pdf/bomb.bin")
    lying[at + 24:at + 28] = (1).to_bytes(4, "little")
    assert refusal(bytes(lying)) == [
        ("pdf/bomb.bin", "cannot be read from the zip (Bad CRC-32 for file 'pdf/bomb.bin')")]


def test_an_encrypted_entry_is_refused_by_name():
    data = bytearray(zipped({"pdf/SKILL.md": PDF_SKILL_MD.encode(), "pdf/x.txt": b"x"}))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        local = archive.getinfo("pdf/x.txt").header_offset
    data[local + 6] |= 1  # the "encrypted" flag, in the local and the central header
    data[_central(data, "pdf/x.txt") + 8] |= 1
    assert refusal(bytes(data)) == [("pdf/x.txt", "is encrypted")]


@pytest.mark.parametrize("path, problem", [
    ("scripts/run.py", None),
    ("日本語/ファイル.md", None),
    ("", "is empty"),
    ("a" * 513, "is longer than 512 characters (513)"),
    ("a//b", "holds an empty part ('//' or a '/' at either end)"),
    ("a/", "holds an empty part ('//' or a '/' at either end)"),
    ("./a", "holds a '.' or '..' part: a path stays inside the skill's folder"),
    ("a\nb", "holds a control character or a line break"),
    ("a\x00b", "holds a control character or a line break"),
    ("\ud800", "is not Unicode text"),
    ("SKILL.md", "is the skill's SKILL.md, which is its text, not a file beside it"),
])
def test_the_path_rule(path, problem):
    assert path_problem(path) == problem


def test_a_path_under_a_file_is_refused():
    assert file_set_problems([("a", 1), ("a/b", 1)]) == [("a/b", "is inside 'a', which is a file")]


def test_a_long_description_and_crlf_survive_the_round_trip():
    [folder] = read_zip(zipped({"doc-coauthoring/SKILL.md": COAUTHORING_SKILL_MD.encode()}))
    assert unzipped(zip_folders([folder]))["doc-coauthoring/SKILL.md"] == (
        COAUTHORING_SKILL_MD.encode())


_PART = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"),
                                       blacklist_characters="/\\"), min_size=1, max_size=12
                ).filter(lambda p: p not in (".", ".."))


@settings(max_examples=60, deadline=None)
@given(files=st.dictionaries(st.lists(_PART, min_size=1, max_size=3).map("/".join),
                             st.binary(max_size=300), max_size=8))
def test_any_folder_round_trips_byte_for_byte(files):
    """Whatever files a folder holds (that the path rule takes), zip -> read -> zip gives
    the same bytes per file."""
    # A clash the rule refuses (tested above) is no round trip.
    assume(not file_set_problems((path, len(data)) for path, data in files.items()))
    # A name an import leaves out wherever it is (tested apart) is no round trip either.
    assume(not any(IGNORED_NAMES & set(path.split("/")) for path in files))
    entries = {"pdf/SKILL.md": PDF_SKILL_MD.encode(),
               **{f"pdf/{path}": data for path, data in files.items()}}
    exported = unzipped(zip_folders(read_zip(zipped(entries))))
    assert exported == {name: data for name, data in entries.items()}


def test_skills_at_real_size_read_whole():
    """A font and a document template of over 1 MB each, executable scripts, nested
    folders and mixed line ends: every byte and mode read."""
    entries = real_repository()
    upload = read_zip(zipped(entries))
    assert upload.left_out == ()
    folders = {folder.skill.d_tag: folder for folder in upload}
    for d_tag in ("canvas-design", "docx"):
        assert {f.path: f.data for f in folders[d_tag].files} == {
            path: data for path, data in skill_files(entries, d_tag).items()
            if path != "SKILL.md"}
    font = next(f for f in folders["canvas-design"].files if f.path.endswith(".ttf"))
    assert font.data == FONT and font.size > 1_000_000
    assert {f.path for f in folders["docx"].files if f.executable} == {
        "ooxml/scripts/unpack.py", "ooxml/scripts/pack.sh"}
    assert folders["docx"].crlf


def test_a_skill_over_its_limits_is_left_out_and_the_others_read():
    entries = {**repository(), **crowded_skill("skills-main/skills/crowded", MAX_FILES)}
    upload = read_zip(zipped(entries))
    assert [f.skill.d_tag for f in upload] == ["doc-coauthoring", "mcp-builder", "pdf"]
    [out] = upload.left_out
    assert (out.source, out.name) == ("skills-main/skills/crowded", "crowded")
    assert out.problems == ((f"skills-main/skills/crowded/data/{MAX_FILES - 1:04}.txt",
                             f"is one file too many: a skill's folder holds at most "
                             f"{MAX_FILES} files, SKILL.md included"),)


def test_the_limits_a_deployment_sets():
    limits = limits_from({"SKILL_MAX_FILES": "4", "SKILL_MAX_BYTES": 2_000_000})
    assert limits == FolderLimits(files=4, file_bytes=2_000_000)
    upload = read_zip(zipped(real_repository()), limits)
    assert [f.skill.d_tag for f in upload] == ["canvas-design", "doc-coauthoring"]
    too_many = ("is one file too many: a skill's folder holds at most 4 files, SKILL.md "
                "included")
    assert {(out.name, out.problems[0][1]) for out in upload.left_out} == {
        ("docx", too_many), ("mcp-builder", too_many), ("pdf", too_many)}
    assert limits_from({}) == DEFAULT_LIMITS == FolderLimits(512, 16 * 1024 * 1024)
    for wrong in ("0", "-1", "1e6", "²", "many"):
        with pytest.raises(ValueError, match="SKILL_MAX_BYTES must be a whole number"):
            limits_from({"SKILL_MAX_BYTES": wrong})
