"""An edit rewrites only the keys it changes: each fixture (`fixtures/edits/*.txt`) is a
SKILL.md, one edit of the skill's fields, and the file written after it. Then line ends
(CRLF, mixed), byte for byte, and a property: untouched keys keep their lines.
`UPDATE_GOLDEN=1` writes what is written into the files, to be reviewed before commit."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.agentskills import encode_skill_md, read_skill_md

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "edits").glob("*.txt"))


def edited(skill, edit: str):
    """`skill` with the edit a fixture names (`field=value`)."""
    field, _, value = edit.partition("=")
    values = {"layer": int, "enabled": lambda v: v == "true",
              "triggers": lambda v: tuple(v.split(","))}
    return dataclasses.replace(skill, **{field: values.get(field, str)(value)})


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.stem for f in FIXTURES])
def test_edit_golden(fixture):
    text = fixture.read_text(encoding="utf-8")
    settings, _, rest = text.partition("=== SKILL.md\n")
    skill_md, _, expected = rest.partition("=== written\n")
    edit = next(line[len("edit: "):] for line in settings.splitlines()
                if line.startswith("edit: "))
    read = read_skill_md(skill_md)
    skill = edited(read.skill, edit)
    written = encode_skill_md(skill, read.head).decode()
    if os.environ.get("UPDATE_GOLDEN"):
        fixture.write_text(settings + "=== SKILL.md\n" + skill_md + "=== written\n" + written,
                           encoding="utf-8")
    assert written == expected
    assert read_skill_md(written).skill == skill


MIXED = (b"---\r\nname: chat\nowner: 'crew'\r\ndescription: Chat\r\n---\r\n\n"
         b"one\r\ntwo\nthree\rfour\r\n")


def test_mixed_line_ends_are_written_back_byte_for_byte():
    read = read_skill_md(MIXED)
    assert read.skill.content == "one\ntwo\nthree\nfour\n"
    assert not read.crlf and read.line_ends == "rnrrrnrncr"
    assert encode_skill_md(read.skill, read.head, read.crlf, read.line_ends) == MIXED


def test_an_edit_keeps_each_untouched_lines_end():
    read = read_skill_md(MIXED)
    skill = dataclasses.replace(read.skill, description="Talks", content="one\ntwo\n")
    written = encode_skill_md(skill, read.head, read.crlf, read.line_ends)
    # The rewritten key takes the end of the line it replaces; the body's lines keep theirs.
    assert written == (b"---\r\nname: chat\nowner: 'crew'\r\ndescription: Talks\r\n---\r\n\n"
                       b"one\r\ntwo\n")


def test_lines_past_the_body_read_take_its_last_end():
    read = read_skill_md(MIXED)
    skill = dataclasses.replace(read.skill, content="one\ntwo\nthree\nfour\nfive\nsix")
    written = encode_skill_md(skill, read.head, read.crlf, read.line_ends)
    assert written.endswith(b"one\r\ntwo\nthree\rfour\r\nfive\r\nsix")


def test_crlf_throughout_keeps_its_flag_and_no_map():
    text = b"---\r\nname: chat\r\ndescription: Chat\r\n---\r\n\r\nx\r\n"
    read = read_skill_md(text)
    assert read.crlf and read.line_ends == ""
    assert encode_skill_md(read.skill, read.head, read.crlf, read.line_ends) == text


_QUOTED = st.sampled_from(["'{}'", '"{}"', "{}", "'{}'   # kept"])
_WORDS = st.text(alphabet="abcdefgh xyz", min_size=1, max_size=12).map(str.strip).filter(bool)
_EDITS = st.sampled_from([("layer", 2), ("enabled", False), ("triggers", ("go",)),
                          ("description", "Another one"), ("name", "Shown")])
_ENDS = st.lists(st.sampled_from(["\n", "\r\n"]), min_size=12, max_size=12)


@settings(deadline=None)
@given(owner=_WORDS, style=_QUOTED, extra=_WORDS, extra_style=_QUOTED, edit=_EDITS, ends=_ENDS)
def test_untouched_keys_keep_their_bytes(owner, style, extra, extra_style, edit, ends):
    lines = ["---", "name: chat", "x-extra: " + extra_style.format(extra), "description: Chat",
             "metadata:", "  owner: " + style.format(owner), "  d_tag: chat",
             "  layer: '1'", "---", "", "body", "more"]
    data = "".join(line + end for line, end in zip(lines, ends, strict=True)).encode()
    read = read_skill_md(data)
    skill = dataclasses.replace(read.skill, **{edit[0]: edit[1]})
    written = encode_skill_md(skill, read.head, read.crlf, read.line_ends)
    for index in (1, 2, 5, 6, 9, 10, 11):  # keys no edit here touches, and the body
        assert (lines[index] + ends[index]).encode() in written
    assert read_skill_md(written).skill == skill


def test_a_huge_head_with_mixed_line_ends_is_written_in_linear_time():
    """The head's lines are compared only between their common start and end, and not
    line by line past `MAX_COMPARED`: a head of 100,000 alike lines is no quadratic diff."""
    lines = "".join("#\n" if i % 2 else "#\r\n" for i in range(100_000))
    data = f"---\nname: chat\ndescription: Chat\n{lines}---\n\nbody\r\n".encode()
    read = read_skill_md(data)
    assert encode_skill_md(read.skill, read.head, read.crlf, read.line_ends) == data
    skill = dataclasses.replace(read.skill, description="Talks")
    written = encode_skill_md(skill, read.head, read.crlf, read.line_ends)
    assert written == data.replace(b"description: Chat\n", b"description: Talks\n")


_LINE = st.text(alphabet="abc #:-'\"", max_size=8).filter(lambda s: s.strip() != "---")


@settings(max_examples=200, deadline=None)
@given(body=st.lists(st.tuples(_LINE, st.sampled_from(["\n", "\r\n", "\r"])), max_size=12),
       head_ends=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=5, max_size=5),
       tail=_LINE)
def test_any_mix_of_line_ends_is_written_back_byte_for_byte(body, head_ends, tail):
    head = ["---", "name: chat", "description: 'Chat'", "---", ""]
    text = "".join(line + end for line, end in zip(head, head_ends, strict=True))
    text += "".join(line + end for line, end in body) + tail
    read = read_skill_md(text.encode())
    assert encode_skill_md(read.skill, read.head, read.crlf, read.line_ends) == text.encode()
