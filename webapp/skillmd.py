"""Agent Skills `SKILL.md` folders: a skill out as a folder, and a folder back in as a skill.

A `SKILL.md` is YAML frontmatter between two `---` lines, then markdown. The Agent Skills
format asks for two frontmatter fields, and this module maps a skill onto them:

- `name` (1-64 characters: lowercase letters, digits and single hyphens, no hyphen at
  either end, the same as the folder's name) is derived from the `d_tag` by `skill_name`:
  accents dropped, lowercased, every run of other characters made one hyphen, trimmed.
- `description` (1-1024 characters) is the skill's description; a skill without one is
  given its display name, else the first line of its text, else `Skill <d_tag>`, on one
  line. Reading stores the file's description, except one equal to what would be
  derived, which stores none: a round trip is exact either way.
- `metadata` (a map of strings) keeps what the format has no field for, so nothing is
  lost: `d_tag`, `display_name`, `layer`, `triggers` (comma-separated) and `enabled`.
- The body is the skill's content verbatim, after one blank line; read back, its line
  ends are LF whatever system saved the file (`lf_line_ends`, as on every path).

Reading accepts a `SKILL.md` written by anything else too: without `metadata`, the
`name` becomes the `d_tag` and the display name, and the skill is a layer-1 skill with
no triggers, enabled; its `description` is stored, unknown keys are not. Pure functions:
text and bytes in, text, bytes and `Skill`s out.
"""

from __future__ import annotations

import dataclasses
import io
import re
import unicodedata
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

import yaml

from webapp.pipeline import (
    Skill,
    check_item,
    excerpt,
    flag_word,
    item_field,
    lf_line_ends,
    load_yaml,
)

SKILL_FILE = "SKILL.md"
NAME_MAX_LENGTH = 64
DESCRIPTION_MAX_LENGTH = 1024
#: The largest SKILL.md read from a zip (the request limit keeps uploads smaller anyway).
MAX_SKILL_FILE_SIZE = 1024 * 1024

_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_ROLE_MARKER = re.compile(r"(?i)(system|user|assistant):\s*")
_FENCE_CLOSE = re.compile(r"^---[ \t]*$", re.MULTILINE)
_NOT_NAME_RUN = re.compile(r"[^a-z0-9]+")
_NOT_NAME_CHAR = re.compile(r"[^a-z0-9-]")


class SkillMdError(ValueError):
    """A `SKILL.md` (or a zip of one) that cannot be read; `.problems` lists `(field, reason)`."""

    def __init__(self, problems: Sequence[tuple[str, str]]):
        self.problems = list(problems)
        super().__init__("; ".join(f"{field}: {reason}" for field, reason in self.problems))


# -- writing


def skill_name(d_tag: str) -> str:
    """The Agent Skills `name` for a `d_tag`: `Chat_Main` -> `chat-main`, `Café/2` -> `cafe-2`."""
    decomposed = unicodedata.normalize("NFKD", d_tag)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()
    name = _NOT_NAME_RUN.sub("-", plain).strip("-")
    return name[:NAME_MAX_LENGTH].rstrip("-") or "skill"


def description_of(skill: Skill) -> str:
    """The `description`: the skill's own, else its display name, else the first line of
    its text, else `Skill <d_tag>`."""
    if skill.description.strip():
        return skill.description
    text = " ".join(skill.name.split()) or _first_line(skill.content) or f"Skill {skill.d_tag}"
    if len(text) > DESCRIPTION_MAX_LENGTH:
        text = text[:DESCRIPTION_MAX_LENGTH - 1] + "…"
    return text


def _first_line(content: str) -> str:
    """The first line of prose: not blank, not a role marker, a fence or a template line."""
    for line in content.splitlines():
        stripped = line.strip()
        if (not stripped or _ROLE_MARKER.fullmatch(stripped) or stripped.startswith(("```", "~~~"))
                or stripped == "---template---" or set(stripped) <= set("-=")):
            continue
        return " ".join(stripped.lstrip("#").split())
    return ""


def frontmatter_of(skill: Skill) -> dict[str, Any]:
    """The frontmatter fields of `skill`, in the order they are written."""
    return {
        "name": skill_name(skill.d_tag),
        "description": description_of(skill),
        "metadata": {
            "d_tag": skill.d_tag,
            "display_name": skill.name,
            "layer": str(skill.layer),
            "triggers": ", ".join(skill.triggers),
            "enabled": "true" if skill.enabled else "false",
        },
    }


def dump_skill_md(skill: Skill) -> str:
    """The text of `skill`'s `SKILL.md`."""
    fields = frontmatter_of(skill)
    front = _yaml(fields, allow_unicode=True)
    if yaml.safe_load(front) != fields:
        # PyYAML writes NEL and the Unicode line separators raw, and reads them back as
        # spaces; with every non-ASCII character escaped the text survives exactly.
        front = _yaml(fields, allow_unicode=False)
    return f"---\n{front}---\n\n{skill.content}"


def _yaml(fields: dict[str, Any], *, allow_unicode: bool) -> str:
    return yaml.safe_dump(fields, sort_keys=False, allow_unicode=allow_unicode,
                          default_flow_style=False, width=1 << 16)


def zip_skill(skill: Skill) -> tuple[str, bytes]:
    """`(file name, bytes)` of a zip holding the folder `<name>/SKILL.md`."""
    name = skill_name(skill.d_tag)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        # A fixed time: the same skill always zips to the same bytes.
        info = zipfile.ZipInfo(f"{name}/{SKILL_FILE}", date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        archive.writestr(info, dump_skill_md(skill).encode("utf-8"))
    return f"{name}.zip", buffer.getvalue()


# -- reading


def name_problems(name: Any) -> list[str]:
    """Why `name` is not a valid Agent Skills name; empty when it is."""
    if not isinstance(name, str):
        return [f"must be a string, not {_type_name(name)}"]
    if not 1 <= len(name) <= NAME_MAX_LENGTH:
        return [f"must be 1-{NAME_MAX_LENGTH} characters, not {len(name)}"]
    if _NAME.fullmatch(name):
        return []
    problems = []
    if _NOT_NAME_CHAR.search(name):
        problems.append("may only contain lowercase letters a-z, digits and hyphens")
    if name.startswith("-") or name.endswith("-"):
        problems.append("must not start or end with a hyphen")
    if "--" in name:
        problems.append("must not contain two hyphens in a row")
    return problems


def load_skill_md(text: str, *, folder: str | None = None) -> Skill:
    """Read a `SKILL.md`; `folder` is the name of the folder it was in, if any.

    Raises:
        SkillMdError: every problem found, each as `(field, reason)`; a YAML syntax
            error names its line and column in the file.
    """
    # Saved on any system: the one line-end rule, for the frontmatter and the body alike.
    text = lf_line_ends(text.removeprefix("\ufeff"))
    front, body = _split(text)
    data = _parse_frontmatter(front)
    problems: list[tuple[str, str]] = []
    name = data.get("name")
    if name is None:
        problems.append(("name", "is required"))
    else:
        problems += [("name", reason) for reason in name_problems(name)]
        if folder is not None and isinstance(name, str) and name != folder:
            problems.append(("name", f"must match the folder name {excerpt(folder)}, "
                                     f"not {excerpt(name)}"))
    description = data.get("description")
    if description is None:
        problems.append(("description", "is required"))
    elif not isinstance(description, str):
        problems.append(("description", f"must be a string, not {_type_name(description)}"))
    elif not description.strip():
        problems.append(("description", "must not be empty"))
    elif len(description) > DESCRIPTION_MAX_LENGTH:
        limit = f"must be at most {DESCRIPTION_MAX_LENGTH} characters, not {len(description)}"
        problems.append(("description", limit))
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        problems.append(("metadata", f"must be a mapping, not {_type_name(metadata)}"))
        metadata = {}
    fields, field_problems = _skill_fields(metadata, name if isinstance(name, str) else "")
    problems += field_problems
    # Without a name the d_tag is missing too: that was said once already.
    d_tag = fields["d_tag"] or ("" if "d_tag" in metadata else "_")
    problems += _bundle_problems({**fields, "d_tag": d_tag, "content": body})
    if problems:
        raise SkillMdError(problems)
    skill = Skill(d_tag=fields["d_tag"], content=body, name=fields["name"],
                  layer=fields["layer"], triggers=tuple(fields["triggers"]),
                  enabled=fields["enabled"])
    # A description that is the one `description_of` derives was not the skill's own:
    # storing none keeps a round trip exact, and the export writes the same text again.
    return skill if description == description_of(skill) else dataclasses.replace(
        skill, description=description)


def _split(text: str) -> tuple[str, str]:
    """Frontmatter text and body; the blank line after the closing `---` is not body."""
    if not text.startswith("---\n"):
        raise _error("frontmatter",
                     "SKILL.md must start with a line '---' opening the YAML frontmatter")
    close = _FENCE_CLOSE.search(text, 4)
    if close is None:
        raise _error("frontmatter", "is not closed by a line '---'")
    rest = text[close.end():].removeprefix("\n")  # the end of the closing `---` line
    return text[4:close.start()], rest.removeprefix("\n")  # and the blank line after it


def _parse_frontmatter(front: str) -> dict[str, Any]:
    try:
        data, _ = load_yaml(front)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        reason = getattr(exc, "problem", None) or excerpt(str(exc))
        # +2: marks count from 0, and the file's first line is the opening `---`.
        where = f" at line {mark.line + 2}, column {mark.column + 1}" if mark else ""
        raise _error("frontmatter", f"invalid YAML{where}: {reason}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _error("frontmatter", f"must be a YAML mapping, not {_type_name(data)}")
    return data


def _skill_fields(metadata: Mapping[str, Any], name: str
                  ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The skill's own fields from `metadata`, with the defaults for a foreign SKILL.md."""
    problems: list[tuple[str, str]] = []

    def text(key: str, default: str) -> str:
        value = metadata.get(key, default)
        if not isinstance(value, str):
            problems.append((f"metadata.{key}", f"must be a string, not {_type_name(value)}"))
            return default
        return value

    layer: Any = metadata.get("layer", "1")
    if isinstance(layer, bool) or not isinstance(layer, (int, str)) or (
            str(layer).strip() not in ("1", "2")):
        problems.append(("metadata.layer", f"must be 1 or 2, not {excerpt(layer)}"))
        layer = "1"
    triggers: Any = metadata.get("triggers", "")
    if isinstance(triggers, str):
        triggers = [t.strip() for t in triggers.split(",") if t.strip()]
    elif not isinstance(triggers, list) or not all(isinstance(t, str) for t in triggers):
        problems.append(("metadata.triggers", "must be trigger names separated by commas"))
        triggers = []
    enabled: Any = metadata.get("enabled", True)
    if isinstance(enabled, str) and flag_word(enabled) is not None:
        enabled = flag_word(enabled)
    elif not isinstance(enabled, bool):
        problems.append(("metadata.enabled", f"must be true or false, not {excerpt(enabled)}"))
        enabled = True
    fields = {"d_tag": text("d_tag", name), "name": text("display_name", name),
              "layer": int(str(layer).strip()), "triggers": triggers, "enabled": enabled}
    return fields, problems


#: Where each of a skill's fields is written in a SKILL.md, for naming it in a problem.
SKILL_MD_FIELDS = {"d_tag": "metadata.d_tag", "name": "metadata.display_name",
                   "description": "description",
                   "layer": "metadata.layer", "triggers": "metadata.triggers",
                   "enabled": "metadata.enabled", "content": "body"}


def _bundle_problems(fields: dict[str, Any]) -> list[tuple[str, str]]:
    """The bundle's verdict on the skill, so an importable skill is also a savable one."""
    problems = []
    for problem in check_item("skills", fields):
        key = item_field(problem.path)
        problems.append((SKILL_MD_FIELDS.get(key, key), problem.message))
    return problems


def read_upload(filename: str, data: bytes) -> Skill:
    """Read an uploaded `SKILL.md` or a zip holding `<name>/SKILL.md` (or `SKILL.md`).

    Raises:
        SkillMdError: the file is not a readable zip or UTF-8 text, holds no or several
            `SKILL.md`, or the `SKILL.md` has problems.
    """
    if data.startswith(b"PK\x03\x04") or filename.lower().endswith(".zip"):
        return _read_zip(data)
    return load_skill_md(_decode(data))


def _read_zip(data: bytes) -> Skill:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            found = [info for info in archive.infolist() if _is_skill_file(info)]
            if not found:
                raise _error("file",
                             f"the zip holds no {SKILL_FILE} (expected <name>/{SKILL_FILE})")
            if len(found) > 1:
                names = ", ".join(info.filename for info in found)
                raise _error("file", f"the zip holds {len(found)} {SKILL_FILE} files ({names}); "
                                     "import one skill at a time")
            info = found[0]
            if info.file_size > MAX_SKILL_FILE_SIZE:
                raise _too_large(info)
            with archive.open(info) as file:
                raw = file.read(MAX_SKILL_FILE_SIZE + 1)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, RuntimeError,
            NotImplementedError) as exc:
        raise _error("file", f"is not a readable zip archive ({exc})") from None
    if len(raw) > MAX_SKILL_FILE_SIZE:  # the size in the zip's directory may lie
        raise _too_large(info)
    parts = PurePosixPath(info.filename).parts
    return load_skill_md(_decode(raw), folder=parts[0] if len(parts) == 2 else None)


def _is_skill_file(info: zipfile.ZipInfo) -> bool:
    """`SKILL.md` or `<folder>/SKILL.md`, not macOS resource forks."""
    parts = PurePosixPath(info.filename).parts
    return (not info.is_dir() and 1 <= len(parts) <= 2 and parts[-1] == SKILL_FILE
            and parts[0] != "__MACOSX")


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _error("file", f"is not UTF-8 text (bad byte at offset {exc.start})") from None


def _error(field: str, reason: str) -> SkillMdError:
    return SkillMdError([(field, reason)])


def _too_large(info: zipfile.ZipInfo) -> SkillMdError:
    return _error("file", f"{info.filename} is larger than {MAX_SKILL_FILE_SIZE} bytes")


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "number", float: "number", str: "string", list: "list",
            dict: "mapping"}.get(type(value), type(value).__name__)
