"""SKILL.md out and in: the name mapping, the frontmatter, problems and round trips."""

from __future__ import annotations

import dataclasses
import io
import zipfile

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.agentskills import (
    SkillFolder,
    SkillMdError,
    description_of,
    dump_skill_md,
    encode_skill_md,
    load_skill_md,
    name_problems,
    read_skill_md,
    read_upload,
    skill_name,
    zip_skill,
)
from webapp.pipeline import Skill, lf_line_ends

CHAT = Skill(d_tag="chat", content="system:\n# Chat\n\nRespond helpfully.\n", name="Chat",
             layer=1, triggers=("dm", "cron"), enabled=True)


def skills_of(filename: str, data: bytes) -> list[Skill]:
    return [folder.skill for folder in read_upload(filename, data)]


def problems_of(text: str, **kwargs) -> list[tuple[str, str]]:
    with pytest.raises(SkillMdError) as caught:
        load_skill_md(text, **kwargs)
    return caught.value.problems


def zipped(files: dict[str, bytes]) -> bytes:
    """A zip of `files`, the same bytes at every call: a parametrized test's id holds
    them, and pytest-xdist's workers must collect the same ids (a zip dated now differs
    when they collect in different seconds)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data)
    return buffer.getvalue()


@pytest.mark.parametrize("d_tag, name", [
    ("chat", "chat"),
    ("Chat", "chat"),
    ("chat_main", "chat-main"),
    ("Chat Main", "chat-main"),
    ("a/b/c", "a-b-c"),
    ("--edge--", "edge"),
    ("a__--__b", "a-b"),
    ("Café-Crème", "cafe-creme"),
    ("naïve.v2", "naive-v2"),
    ("日本語", "skill"),
    ("___", "skill"),
    ("x" * 80, "x" * 64),
    ("a" * 63 + "-b", "a" * 63),  # cut at 64, then the trailing hyphen goes
])
def test_skill_name_from_d_tag(d_tag, name):
    assert skill_name(d_tag) == name
    assert name_problems(name) == []


@given(st.text(min_size=1))
def test_every_derived_name_is_valid(d_tag):
    assert name_problems(skill_name(d_tag)) == []


@pytest.mark.parametrize("name, reasons", [
    ("pdf-processing", []),
    ("a", []),
    ("x1-2y", []),
    ("", ["must be 1-64 characters, not 0"]),
    ("x" * 65, ["must be 1-64 characters, not 65"]),
    ("PDF", ["may only contain lowercase letters a-z, digits and hyphens"]),
    ("-pdf", ["must not start or end with a hyphen"]),
    ("pdf-", ["must not start or end with a hyphen"]),
    ("pdf--x", ["must not contain two hyphens in a row"]),
    ("pdf_x", ["may only contain lowercase letters a-z, digits and hyphens"]),
    (12, ["must be a string, not number"]),
])
def test_name_rules(name, reasons):
    assert name_problems(name) == reasons


@pytest.mark.parametrize("skill, description", [
    (CHAT, "Chat"),
    (Skill(d_tag="x", content="system:\n\n# The  Heading\nmore\n"), "The Heading"),
    (Skill(d_tag="x", content="```\ncode\n```\n"), "code"),
    (Skill(d_tag="x", content="user:\n---template---\n- section: a\n"), "- section: a"),
    (Skill(d_tag="x", content=""), "Skill x"),
    (Skill(d_tag="x", content="\n\n", name="   "), "Skill x"),
    (Skill(d_tag="x", content="", name="Multi\nline  name"), "Multi line name"),
])
def test_description(skill, description):
    assert description_of(skill) == description


def test_a_skill_description_is_written_and_read_back():
    skill = Skill(d_tag="x", content="body\n", name="X", description="Does X.\nWhen asked.")
    text = dump_skill_md(skill)
    assert yaml.safe_load(text.split("---\n")[1])["description"] == "Does X.\nWhen asked."
    assert load_skill_md(text) == skill
    # A file whose description is the derived one stores none, and exports the same text.
    derived = load_skill_md(dump_skill_md(Skill(d_tag="y", content="", name="Why")))
    assert derived.description == "" and description_of(derived) == "Why"


def test_long_description_is_cut_to_1024():
    description = description_of(Skill(d_tag="x", content="", name="word " * 400))
    assert len(description) == 1024 and description.endswith("…")


def test_dump_writes_frontmatter_then_the_content_verbatim():
    text = dump_skill_md(CHAT)
    assert text == (
        "---\n"
        "name: chat\n"
        "description: Chat\n"
        "metadata:\n"
        "  d_tag: chat\n"
        "  display_name: Chat\n"
        "  layer: '1'\n"
        "  triggers: dm, cron\n"
        "  enabled: 'true'\n"
        "---\n"
        "\n"
        "system:\n# Chat\n\nRespond helpfully.\n"
    )


def test_metadata_values_are_strings():
    front = yaml.safe_load(dump_skill_md(CHAT).split("---\n")[1])
    assert all(isinstance(value, str) for value in front["metadata"].values())


@pytest.mark.parametrize("name", ["Zoë", "next\x85line", "line\u2028sep", "tab\there", "é\u2029"])
def test_round_trip_of_yaml_line_breaks_and_unicode(name):
    skill = Skill(d_tag="x", content="", name=name)
    assert load_skill_md(dump_skill_md(skill)) == skill


def test_unicode_stays_readable():
    assert "display_name: Zoë\n" in dump_skill_md(Skill(d_tag="x", content="", name="Zoë"))


def test_round_trip_keeps_every_field():
    skill = Skill(d_tag="Weird:#x", content="\n\nleading blank lines\n---\nno final newline",
                  name="Name: with 'quotes' and \"more\"", layer=2, triggers=(), enabled=False)
    assert load_skill_md(dump_skill_md(skill)) == skill


@settings(max_examples=200, deadline=None)
@given(
    d_tag=st.text(min_size=1).filter(lambda t: not any(c.isspace() or c in "{}" for c in t)
                                     and t.strip()),
    content=st.text().map(lf_line_ends),  # as every stored skill's content is
    name=st.text(),
    layer=st.sampled_from([1, 2]),
    triggers=st.lists(st.text(min_size=1).filter(lambda t: "," not in t and t.strip() == t
                                                 and t.strip()), max_size=3),
    enabled=st.booleans(),
    description=st.text(max_size=1024),
)
def test_round_trip_property(d_tag, content, name, layer, triggers, enabled, description):
    skill = Skill(d_tag=d_tag, content=content, name=name, layer=layer,
                  triggers=tuple(triggers), enabled=enabled)
    # A description equal to the derived one reads back as none (the file is the same).
    if description.strip() and description != description_of(skill):
        skill = dataclasses.replace(skill, description=description)
    assert load_skill_md(dump_skill_md(skill)) == skill
    filename, data = zip_skill(SkillFolder(skill))
    assert skills_of(filename, data) == [skill]


def test_zip_holds_the_folder_named_like_the_skill():
    skill = Skill(d_tag="Chat_Main", content="hi\n")
    filename, data = zip_skill(SkillFolder(skill))
    assert filename == "chat-main.zip"
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.namelist() == ["chat-main/SKILL.md"]
        text = archive.read("chat-main/SKILL.md").decode()
    assert text.startswith("---\nname: chat-main\n") and text.endswith("\nhi\n")
    assert zip_skill(SkillFolder(skill))[1] == data  # the same skill zips to the same bytes


def test_foreign_skill_md_without_metadata():
    text = ("---\nname: pdf-processing\ndescription: Extract text from PDFs. Use for PDFs.\n"
            "license: MIT\nallowed-tools: Bash(pdftotext:*)\n---\n# PDF processing\n\nSteps.\n")
    assert load_skill_md(text) == Skill(d_tag="pdf-processing", name="pdf-processing",
                                        content="# PDF processing\n\nSteps.\n",
                                        description="Extract text from PDFs. Use for PDFs.")


def test_metadata_in_native_yaml_types_is_accepted():
    text = ("---\nname: chat\ndescription: Chat\nmetadata:\n  layer: 2\n  enabled: false\n"
            "  triggers: [dm, cron]\n---\nbody\n")
    skill = load_skill_md(text)
    assert (skill.layer, skill.enabled, skill.triggers) == (2, False, ("dm", "cron"))


def test_windows_line_ends_are_converted_and_written_back():
    text = "---\r\nname: chat\r\ndescription: Chat\r\n---\r\n\r\nline one\r\nline two\r\n"
    read = read_skill_md(text.encode())
    assert read.skill.content == "line one\nline two\n" and read.crlf
    assert encode_skill_md(read.skill, read.head, read.crlf) == text.encode()
    mixed = read_skill_md(b"---\nname: chat\r\ndescription: Chat\n---\nx\r\n")
    assert not mixed.crlf and mixed.skill.content == "x\n"


def test_byte_order_mark_is_kept_in_the_head():
    data = ("\ufeff" + dump_skill_md(CHAT)).encode()
    [folder] = read_upload("SKILL.md", data)
    assert folder.skill == CHAT and folder.head.startswith("\ufeff---\n")
    assert encode_skill_md(folder.skill, folder.head) == data


@pytest.mark.parametrize("text, expected", [
    ("no frontmatter\n", [("frontmatter", ("SKILL.md must start with a line '---' opening the "
                                          "YAML frontmatter"))]),
    ("---\nname: x\n", [("frontmatter", "is not closed by a line '---'")]),
    ("---\n- a\n- b\n---\n", [("frontmatter", "must be a YAML mapping, not list")]),
    ("---\n---\nbody", [("name", "is required")]),
    ("---\nname: [x]\n---\nbody", [("name", "must be a string, not list")]),
    ("---\nname: x\ndescription: [a]\n---\n", [("description", "must be a string, not list")]),
    ("---\nname: x\ndescription: d\nmetadata: text\n---\n",
     [("metadata", "must be a mapping, not string")]),
    (("---\nname: x\ndescription: d\nmetadata:\n  layer: '3'\n  enabled: maybe\n"
     "  triggers: {a: 1}\n  d_tag: 5\n---\n"),
     [("metadata.layer", "must be 1 or 2, not '3'"),
      ("metadata.triggers", "must be trigger names separated by commas"),
      ("metadata.enabled", "must be true or false, not 'maybe'"),
      ("metadata.d_tag", "must be a string, not number")]),
    ("---\nname: x\ndescription: d\nmetadata:\n  d_tag: a b\n---\n",
     [("metadata.d_tag", "a d_tag must not contain whitespace or braces: 'a b'")]),
])
def test_problems_are_listed_by_field(text, expected):
    assert problems_of(text) == expected


def test_every_problem_at_once():
    text = "---\nname: 5\ndescription: [x]\nmetadata:\n  layer: x\n---\n"
    assert [field for field, _ in problems_of(text)] == ["name", "description", "metadata.layer"]


def test_what_a_client_refuses_still_reads():
    """A long description, a name off the format's pattern or unlike its folder: the lint's
    (`tests/agentskills/test_lint.py`), not a refusal."""
    text = "---\nname: PDF_Tools\ndescription: " + "d" * 1068 + "\n---\nbody\n"
    skill = load_skill_md(text, folder="other")
    assert (skill.d_tag, len(skill.description)) == ("PDF_Tools", 1068)
    assert load_skill_md("---\ndescription: d\n---\n", folder="pdf").d_tag == "pdf"


def test_invalid_yaml_names_line_and_column():
    [(field, reason)] = problems_of("---\nname: chat\ndescription: [unclosed\n---\nbody\n")
    assert field == "frontmatter"
    assert reason.startswith("invalid YAML at line 4, column 1:")
    [(_, reason)] = problems_of("---\nname: chat\n  bad: indent\n---\n")
    assert reason.startswith("invalid YAML at line 3, column 6:")


def test_zip_with_skill_md_at_the_top():
    data = zipped({"SKILL.md": dump_skill_md(CHAT).encode()})
    assert skills_of("upload.zip", data) == [CHAT]


def test_zip_leaves_out_macos_forks():
    data = zipped({"chat/SKILL.md": dump_skill_md(CHAT).encode(),
                   "chat/scripts/run.sh": b"echo hi\n",
                   "__MACOSX/chat/SKILL.md": b"\x00\x05junk",
                   "chat/.DS_Store": b"\x00"})
    [folder] = read_upload("chat.zip", data)
    assert folder.skill == CHAT
    assert [(f.path, f.data) for f in folder.files] == [("scripts/run.sh", b"echo hi\n")]


@pytest.mark.parametrize("filename, data, where, reason", [
    ("x.zip", b"not a zip", "upload", "is not a readable zip archive"),
    ("x.zip", zipped({"chat/README.md": b"hi"}), "upload", "holds no SKILL.md"),
    ("SKILL.md", b"---\nname: \xff\n---\n", "SKILL.md",
     "is not UTF-8 text (bad byte at offset 10)"),
])
def test_unreadable_uploads(filename, data, where, reason):
    with pytest.raises(SkillMdError) as caught:
        read_upload(filename, data)
    [(field, message)] = caught.value.problems
    assert field == where and message.startswith(reason)


def test_zip_bomb_is_refused_before_reading(monkeypatch):
    from webapp.agentskills import folders

    monkeypatch.setattr(folders, "MAX_SKILL_FILE_SIZE", 100)
    data = zipped({"chat/SKILL.md": b"x" * 101})
    with pytest.raises(SkillMdError, match="larger than 100 bytes"):
        read_upload("chat.zip", data)
