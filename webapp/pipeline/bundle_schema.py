"""What a bundle may hold, as tables the reader (`bundle._Checker`) checks against, and the
same tables as a JSON Schema (`bundle_schema`): the runtime API's document describes a
snapshot's body with it, and an import refuses exactly what it does not allow.

The reader says more than the schema can (a d_tag's form, a unique name, a skill's folder
whose bytes and sha256 disagree): the schema is the shape, the reader the rules; a bundle
the reader accepts always fits the schema (tests/pipeline/test_bundle_schema.py).
"""

from __future__ import annotations

from typing import Any

from .folders import FILE_KEYS, FOLDER_KEYS
from .workspace import BUNDLE_FORMAT, FOLDERS_FORMAT

ROOT_KEYS = ("format", "agent", "skills", "tools", "variables", "scenarios")
AGENT_KEYS = ("name", "title", "message_mode", "max_array_items", "history_labels", "model",
              "context_window", "builtin_tests")
SKILL_KEYS = ("d_tag", "name", "description", "layer", "triggers", "enabled", "content")
TOOL_KEYS = ("name", "description", "result", "results_by_args")
RESULT_KEYS = ("args", "result")
VARIABLE_KEYS = ("name", "tool", "args", "result_field", "path", "format", "limit")
SCENARIO_KEYS = ("name", "trigger", "message", "history", "event", "provider", "expect")
HISTORY_KEYS = ("role", "content", "created_at")
#: Each object of a bundle and the keys it may have, as the reader names them.
SECTION_KEYS = {"root": ROOT_KEYS, "agent": AGENT_KEYS, "skill": SKILL_KEYS, "tool": TOOL_KEYS,
                "result": RESULT_KEYS, "variable": VARIABLE_KEYS, "scenario": SCENARIO_KEYS,
                "history": HISTORY_KEYS}


def _object(keys: tuple[str, ...], required: tuple[str, ...] = (),
            typed: dict[str, Any] | None = None) -> dict[str, Any]:
    typed = typed or {}
    return {"type": "object", "additionalProperties": False,
            "required": list(required),
            "properties": {key: typed.get(key, {}) for key in keys}}


def bundle_schema() -> dict[str, Any]:
    """A bundle's JSON Schema (draft 2020-12, as OpenAPI 3.1 reads it), `/1` and `/2`."""
    text, number = {"type": "string"}, {"type": "integer"}
    file = _object(FILE_KEYS, FILE_KEYS[:3] + ("data",), {
        "path": text, "size": number, "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "executable": {"type": "boolean"},
        "data": {"type": "string", "contentEncoding": "base64"}})
    skill = _object(SKILL_KEYS + FOLDER_KEYS, ("d_tag", "content"), {
        "d_tag": text, "name": text, "description": text, "layer": number,
        "triggers": {"type": "array", "items": text}, "enabled": {"type": "boolean"},
        "content": text, "frontmatter": text, "crlf": {"type": "boolean"},
        "line_ends": {"type": "string", "pattern": "^[nrc]*$"},
        "files": {"type": "array", "items": file}})
    history = _object(HISTORY_KEYS, ("role", "content"),
                      {"role": text, "content": text})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "skill-workspace bundle",
        "description": "a whole workspace (docs/bundle.md); a skill's folder keys "
                       f"({', '.join(FOLDER_KEYS)}) only in {FOLDERS_FORMAT!r}",
        **_object(ROOT_KEYS, ROOT_KEYS, {
            "format": {"enum": [BUNDLE_FORMAT, FOLDERS_FORMAT]},
            "agent": _object(AGENT_KEYS, ("name",), {
                "name": text, "title": text, "model": text, "max_array_items": number,
                "context_window": number, "builtin_tests": {"type": "boolean"},
                "history_labels": {"type": "object", "additionalProperties": text}}),
            "skills": {"type": "array", "items": skill},
            "tools": {"type": "array", "items": _object(TOOL_KEYS, ("name",), {
                "name": text, "description": text,
                "results_by_args": {"type": "array", "items": _object(RESULT_KEYS,
                                                                      ("args",))}})},
            "variables": {"type": "array", "items": _object(VARIABLE_KEYS, ("name", "tool"), {
                "name": text, "tool": text})},
            "scenarios": {"type": "array", "items": _object(SCENARIO_KEYS, ("name",), {
                "name": text, "history": {"type": "array", "items": history},
                "expect": {"type": "array"}})},
        }),
    }
