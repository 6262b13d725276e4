"""A bundle's JSON Schema (`pipeline.bundle_schema`) and its reader (`load_bundle`) read
the same key tables: every bundle the reader accepts fits the schema, and a key one does
not allow the other refuses too. The runtime API's document describes a snapshot with it."""

from __future__ import annotations

import copy
from pathlib import Path

import jsonschema
import pytest

import webapp
from webapp.pipeline import (
    BundleError,
    Folder,
    Skill,
    SkillFile,
    Workspace,
    bundle_schema,
    dump_bundle,
    load_bundle,
    parse_json,
)
from webapp.pipeline.workspace import Agent

DEMOS = sorted((Path(webapp.__file__).parent / "demo").glob("*.json"))
FOLDERS = Workspace(Agent(name="Docs"), skills=(Skill("pdf", "Read it.\n"),),
                    folders=(Folder("pdf", "---\nname: pdf\n---\n", True,
                                    (SkillFile("run.sh", b"#!/bin/sh\n", executable=True),),
                                    "rnr"),))
VALIDATOR = jsonschema.Draft202012Validator(bundle_schema())


def bundles() -> list[dict]:
    return [parse_json(path.read_text(encoding="utf-8")) for path in DEMOS] + [
        dump_bundle(FOLDERS)]


def test_the_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(bundle_schema())


@pytest.mark.parametrize("index", range(len(DEMOS) + 1))
def test_every_bundle_the_reader_accepts_fits_the_schema(index):
    bundle = bundles()[index]
    load_bundle(copy.deepcopy(bundle))
    assert list(VALIDATOR.iter_errors(bundle)) == []


# Where an unknown key may be put, in each object the reader checks.
PLACES = {
    "the root": lambda b: b,
    "the agent": lambda b: b["agent"],
    "a skill": lambda b: b["skills"][0],
    "a file": lambda b: b["skills"][0]["files"][0],
}


@pytest.mark.parametrize("place", PLACES)
def test_a_key_the_schema_does_not_allow_the_reader_refuses(place):
    bundle = dump_bundle(FOLDERS)
    PLACES[place](bundle)["surprise"] = 1
    assert not VALIDATOR.is_valid(bundle)
    with pytest.raises(BundleError, match="surprise"):
        load_bundle(bundle)


def test_a_folder_key_belongs_to_the_second_format_only_in_the_reader():
    """The schema allows a skill's folder keys in either format (it describes both); the
    reader says `/1` has none, which is the rule the schema's description states."""
    bundle = dump_bundle(FOLDERS)
    bundle["format"] = "skill-workspace/1"
    with pytest.raises(BundleError, match="frontmatter"):
        load_bundle(bundle)
    assert "only in 'skill-workspace/2'" in bundle_schema()["description"]
