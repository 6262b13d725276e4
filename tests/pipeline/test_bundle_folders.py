"""`skill-workspace/2`: a bundle that holds each skill's folder (its SKILL.md head as
written, its line ends, its files byte for byte) and still reads `/1`."""

from __future__ import annotations

import base64
import copy
import hashlib

import pytest

from webapp.pipeline import (
    BundleError,
    Folder,
    Skill,
    SkillFile,
    Workspace,
    bundle_text,
    dump_bundle,
    load_bundle,
    parse_json,
)
from webapp.pipeline.workspace import Agent

HEAD = "---\n# kept as written\nname: pdf\ndescription: PDFs.\nlicense: MIT\n---\n\n"
FILES = (SkillFile("assets/font.ttf", bytes(range(256)) * 3),
         SkillFile("scripts/run.sh", b"#!/bin/sh\r\necho hi\n", executable=True))
WORKSPACE = Workspace(Agent(name="Docs"),
                      skills=(Skill("pdf", "Read it.\n"), Skill("plain", "Plain.\n")),
                      folders=(Folder("pdf", HEAD, True, FILES),))


def test_a_workspace_with_folders_round_trips_every_byte():
    bundle = dump_bundle(WORKSPACE)
    assert bundle["format"] == "skill-workspace/2"
    pdf, plain = bundle["skills"]
    assert (pdf["frontmatter"], pdf["crlf"]) == (HEAD, True)
    assert pdf["files"][1] == {
        "path": "scripts/run.sh", "size": 19,
        "sha256": hashlib.sha256(b"#!/bin/sh\r\necho hi\n").hexdigest(), "executable": True,
        "data": base64.b64encode(b"#!/bin/sh\r\necho hi\n").decode()}
    assert (plain["frontmatter"], plain["crlf"], plain["files"]) == ("", False, [])
    text = bundle_text(bundle)
    again = load_bundle(parse_json(text))
    assert again == WORKSPACE
    assert bundle_text(dump_bundle(again)) == text


def test_a_workspace_without_folders_is_the_version_1_bundle_it_was():
    plain = Workspace(Agent(name="Docs"), skills=(Skill("plain", "Plain.\n"),),
                      folders=(Folder("plain"),))
    bundle = dump_bundle(plain)
    assert bundle["format"] == "skill-workspace/1"
    assert set(bundle["skills"][0]) == {"d_tag", "name", "description", "layer", "triggers",
                                        "enabled", "content"}
    assert load_bundle(bundle) == Workspace(Agent(name="Docs"), skills=plain.skills)


def test_version_1_refuses_the_folder_keys():
    bundle = dump_bundle(WORKSPACE)
    bundle["format"] = "skill-workspace/1"
    with pytest.raises(BundleError) as caught:
        load_bundle(bundle)
    assert [p.path for p in caught.value.problems] == [
        "$.skills[0].frontmatter", "$.skills[0].crlf", "$.skills[0].files",
        "$.skills[1].frontmatter", "$.skills[1].crlf", "$.skills[1].files"]


@pytest.mark.parametrize("change, path, message", [
    (lambda f: f.update(data="not base64!"), "data", "is not valid base64"),
    (lambda f: f.update(size=3), "size", "must be the size of its data, 768"),
    (lambda f: f.update(sha256="0" * 64), "sha256",
     "must be the sha256 of its data (hexadecimal, lowercase)"),
    (lambda f: f.update(executable="yes"), "executable", "must be true or false"),
    (lambda f: f.update(path=""), "path", "must be a non-empty string"),
    (lambda f: f.update(mode=755), "mode",
     "unknown key (expected one of: path, size, sha256, executable, data)"),
])
def test_a_file_whose_manifest_and_bytes_disagree_is_named(change, path, message):
    bundle = copy.deepcopy(dump_bundle(WORKSPACE))
    change(bundle["skills"][0]["files"][0])
    with pytest.raises(BundleError) as caught:
        load_bundle(bundle)
    assert [(p.path, p.message) for p in caught.value.problems][:1] == [
        (f"$.skills[0].files[0].{path}", message)]
