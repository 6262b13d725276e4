"""Agent Skills `SKILL.md`: a skill out as its text, and the text back in as a skill.

A `SKILL.md` is YAML frontmatter between two `---` lines, then markdown. The Agent Skills
format asks for two frontmatter fields, and this module maps a skill onto them:

- `name` (1-64 characters: lowercase letters, digits and single hyphens, no hyphen at
  either end, the same as the folder's name) is derived from the `d_tag` by `skill_name`:
  accents dropped, lowercased, every run of other characters made one hyphen, trimmed.
- `description` is the skill's description; a skill without one is given its display
  name, else the first line of its text, else `Skill <d_tag>`, on one line. Reading stores
  the file's description, except one equal to what would be derived, which stores none.
- `metadata` (a map of strings) keeps what the format has no field for: `d_tag`,
  `display_name`, `layer`, `triggers` (comma-separated) and `enabled`.
- The body is the skill's content verbatim, after one blank line; read back, its line
  ends are LF whatever system saved the file (`lf_line_ends`, as on every path), and the
  file's own are kept beside it (`crlf`, or each line's in `line_ends`) to write it back.

Reading accepts a `SKILL.md` written by anything else too: without `metadata`, the `name`
(else the folder's name) becomes the `d_tag` and the display name, and the skill is a
layer-1 skill with no triggers, enabled. Its head is kept as written (`frontmatter`), so
the file is written back byte for byte (a BOM and its line ends included) while the
skill's fields are the ones the head gives; a field edited since is rewritten in place.

What a client would refuse (a long description, a name that breaks the format's pattern
or differs from its folder) does not stop a read: the lint says it (`lint`). A read is
refused only for what cannot be stored or read back: no frontmatter, invalid YAML, a
field of the wrong type, a `d_tag` the bundle refuses. Pure functions.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from webapp.pipeline import (
    TEMPLATE_MARKER,
    Skill,
    check_item,
    excerpt,
    flag_word,
    item_field,
    lf_line_ends,
    marker_role,
)

from .frontmatter import (
    SkillMdError,
    dump_yaml,
    error,
    head_parts,
    parse_head,
    patch_head,
    split_head,
    type_name,
)
from .line_ends import crlf_throughout, line_ends_of, with_line_ends
from .paths import SKILL_FILE

NAME_MAX_LENGTH = 64
DESCRIPTION_MAX_LENGTH = 1024
#: The largest SKILL.md read.
MAX_SKILL_FILE_SIZE = 1024 * 1024

_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_NOT_NAME_RUN = re.compile(r"[^a-z0-9]+")
_NOT_NAME_CHAR = re.compile(r"[^a-z0-9-]")


@dataclasses.dataclass(frozen=True)
class SkillText:
    """A skill read from a `SKILL.md`, with the file's head as written and its line ends:
    CRLF throughout (`crlf`), or each line's when they are mixed (`line_ends`)."""

    skill: Skill
    head: str = ""
    crlf: bool = False
    line_ends: str = ""


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
        if (not stripped or marker_role(stripped) or stripped.startswith(("```", "~~~"))
                or stripped == TEMPLATE_MARKER or set(stripped) <= set("-=")):
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


def dump_skill_md(skill: Skill, head: str = "") -> str:
    """The text of `skill`'s `SKILL.md` (LF line ends): its `head` kept as far as it still
    reads as the skill's fields (`head_for`), else the frontmatter `frontmatter_of` gives."""
    return head_for(skill, head) + skill.content


def encode_skill_md(skill: Skill, head: str = "", crlf: bool = False,
                    line_ends: str = "") -> bytes:
    """The bytes of `skill`'s `SKILL.md`, with the line ends of the file read: CRLF when
    `crlf`, each line's (`line_ends.with_line_ends`) when it mixed them."""
    written = head_for(skill, head)
    if line_ends:
        return with_line_ends(head, written, skill.content, line_ends).encode("utf-8")
    text = written + skill.content
    return (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")


def head_for(skill: Skill, head: str) -> str:
    """The head `skill`'s `SKILL.md` is written with: `head` as it is when it reads as the
    skill's fields; with the keys that no longer do rewritten when it does not; the
    frontmatter of `frontmatter_of` when there is no head."""
    if not head:
        return f"---\n{dump_yaml(frontmatter_of(skill))}---\n\n"
    read = _reads(head, skill)
    if read == skill:
        return head
    values: dict[str, Any] = {}
    if read is None or read.d_tag != skill.d_tag:
        values["name"] = skill_name(skill.d_tag)
    if read is None or read.description != skill.description:
        values["description"] = description_of(skill)
    read = _reads(patch_head(head, values), skill) if values else read
    if read is not None:
        data, _ = parse_head(head)
        metadata = data.get("metadata")
        metadata = dict(metadata) if isinstance(metadata, Mapping) else {}
        wanted = frontmatter_of(skill)["metadata"]
        changed = {key: wanted[key] for field, key in _METADATA_KEYS.items()
                   if getattr(read, field) != getattr(skill, field)}
        if changed:
            values["metadata"] = {**metadata, **changed}
    for attempt in (values, frontmatter_of(skill)):
        patched = patch_head(head, attempt)
        if _reads(patched, skill) == skill:
            return patched
    return f"---\n{dump_yaml(frontmatter_of(skill))}---\n\n"  # the head's keys cannot say it


#: The skill's fields kept in `metadata`, and their keys there.
_METADATA_KEYS = {"d_tag": "d_tag", "name": "display_name", "layer": "layer",
                  "triggers": "triggers", "enabled": "enabled"}


def _reads(head: str, skill: Skill) -> Skill | None:
    """What `head` reads as, for a file beside `skill`'s text in `skill`'s folder, or None."""
    try:
        return _skill_of(head, skill.content, skill_name(skill.d_tag))
    except SkillMdError:
        return None


def name_problems(name: Any) -> list[str]:
    """Why `name` is not a valid Agent Skills name; empty when it is."""
    if not isinstance(name, str):
        return [f"must be a string, not {type_name(name)}"]
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


# -- reading


def read_skill_md(data: bytes | str, *, folder: str | None = None) -> SkillText:
    """Read a `SKILL.md` (bytes are UTF-8); `folder` is the name of the folder it was in.

    Raises:
        SkillMdError: every problem found, each as `(field, reason)`; a YAML syntax
            error names its line and column in the file.
    """
    text = decode(data) if isinstance(data, bytes) else data
    # Saved on any system: the one line-end rule, for the frontmatter and the body alike;
    # the file's own line ends are kept beside the text to write it back with them.
    head, body = split_head(lf_line_ends(text))
    return SkillText(_skill_of(head, body, folder), head, crlf_throughout(text),
                     line_ends_of(text))


def text_bytes(text: str, crlf: bool) -> bytes:
    """A text file's bytes from its text as edited (any line ends): LF, or CRLF when the
    file had them (`crlf_throughout`)."""
    text = lf_line_ends(text)
    return (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")


def frontmatter_yaml(head: str) -> str:
    """The YAML between a head's two `---` lines, as written (what the frontmatter editor
    shows)."""
    return head_parts(head)[1]


def with_frontmatter(head: str, text: str, content: str, *, folder: str | None = None
                     ) -> SkillText:
    """The skill a SKILL.md reads as when the YAML of `head` is replaced by `text` (edited
    by hand: any line ends) and its body is `content`; its head keeps the fences (and a
    byte-order mark) of `head`.

    Raises:
        SkillMdError: the file would pass `MAX_SKILL_FILE_SIZE`, `text` holds a line
            `---` (it would end the frontmatter), or the file does not read
            (`read_skill_md`).
    """
    opening, _, closing = head_parts(head)
    text = lf_line_ends(text)
    if text and not text.endswith("\n"):
        text += "\n"
    whole = opening + text + closing + content
    if len(whole.encode("utf-8")) > MAX_SKILL_FILE_SIZE:
        raise error("frontmatter", f"the SKILL.md would pass {MAX_SKILL_FILE_SIZE:,} bytes")
    read = read_skill_md(whole, folder=folder)
    if read.skill.content != content:
        raise error("frontmatter", "a line '---' would end the frontmatter there")
    return read


def load_skill_md(text: str, *, folder: str | None = None) -> Skill:
    """The skill a `SKILL.md`'s text reads as (`read_skill_md`)."""
    return read_skill_md(text, folder=folder).skill


def _skill_of(head: str, body: str, folder: str | None) -> Skill:
    data, _ = parse_head(head)
    problems: list[tuple[str, str]] = []
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        problems.append(("name", f"must be a string, not {type_name(name)}"))
    name = name if isinstance(name, str) else (folder or "")
    if not name and "name" not in data:
        problems.append(("name", "is required"))
    description = data.get("description")
    if description is None:
        description = ""
    elif not isinstance(description, str):
        problems.append(("description", f"must be a string, not {type_name(description)}"))
        description = ""
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        problems.append(("metadata", f"must be a mapping, not {type_name(metadata)}"))
        metadata = {}
    fields, field_problems = _skill_fields(metadata, name)
    problems += field_problems
    # Without a name the d_tag is missing too: that was said once already.
    d_tag = fields["d_tag"] or ("" if "d_tag" in metadata or name else "_")
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


def _skill_fields(metadata: Mapping[str, Any], name: str
                  ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The skill's own fields from `metadata`, with the defaults for a foreign SKILL.md."""
    problems: list[tuple[str, str]] = []

    def text(key: str, default: str) -> str:
        value = metadata.get(key, default)
        if not isinstance(value, str):
            problems.append((f"metadata.{key}", f"must be a string, not {type_name(value)}"))
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


def decode(data: bytes, where: str = SKILL_FILE) -> str:
    """`data` as UTF-8 text (a BOM is kept as a character)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(where, f"is not UTF-8 text (bad byte at offset {exc.start})") from None
