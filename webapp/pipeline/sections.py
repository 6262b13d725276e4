"""Template sections: the YAML list after a `---template---` line of a skill.

Each section fetches its text by calling a tool (`tool`, `args`, `result_field`,
`path`, `format`) or writes it (`content`, which may use `{{variables}}`), and becomes
one block with its own `role` after the skill's own text. See docs/SKILLS.md.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import yaml

from .memo import memo, str_bytes
from .roles import FenceTracker
from .untrusted import excerpt, load_yaml

TEMPLATE_MARKER = "---template---"
SECTION_ROLES = ("system", "user", "assistant", "expand")
SECTION_KEYS = ("section", "role", "tool", "args", "result_field", "path", "format", "content",
                "skip_if_empty", "limit", "provider", "provider_content")


@dataclass(frozen=True, slots=True)
class Section:
    """One valid template section; `line` is its 1-based line in the skill."""

    name: str
    role: str
    line: int
    tool: str | None = None
    args: Any = None
    result_field: str = "content"
    path: str | None = None
    format: str | None = None
    content: str | None = None
    skip_if_empty: bool = False
    limit: int | None = None
    provider: str | None = None
    provider_content: str | None = None


@dataclass(frozen=True, slots=True)
class Template:
    """The parsed template part of a skill: its valid sections and the problems found."""

    sections: tuple[Section, ...]
    problems: tuple[tuple[int, str], ...]  # (1-based line in the skill, message)


def split_template(lines: list[str]) -> int:
    """The index of the `---template---` line of `lines` (outside code fences), or -1."""
    if not any(line.startswith(TEMPLATE_MARKER) for line in lines):
        return -1
    fence = FenceTracker()
    for index, line in enumerate(lines):
        if not fence.feed(line) and line.rstrip(" \t") == TEMPLATE_MARKER:
            return index
    return -1


def _template_weight(args: tuple[Hashable, ...], template: Template) -> int:
    text, _ = args
    return (str_bytes(text) + 200 + 400 * len(template.sections)  # type: ignore[arg-type]
            + sum(200 + str_bytes(problem) for _, problem in template.problems))


#: A pure function of its arguments; 8 MB holds the templates of several workspaces and
#: the drafts typed last (a template is re-parsed only when its text changes).
@memo(max_bytes=8 << 20, weight=_template_weight)
def parse_template(text: str, first_line: int) -> Template:
    """Parse the YAML after `---template---`; `first_line` is the skill line it starts on.

    A YAML syntax error drops every section; an invalid section is dropped alone.
    """
    try:
        data, node = load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = first_line + (mark.line if mark else 0)
        reason = getattr(exc, "problem", None) or excerpt(str(exc))
        return Template((), ((line, f"invalid YAML: {reason}"),))
    if node is None or data is None:  # nothing after the marker
        return Template((), ())
    if not isinstance(data, list):
        return Template((), ((first_line, "the template must be a YAML list of sections"),))
    sections: list[Section] = []
    problems: list[tuple[int, str]] = []
    for item, item_node in zip(data, node.value, strict=True):
        line = first_line + item_node.start_mark.line
        section, problem = _section(item, line)
        if section is not None:
            sections.append(section)
        else:
            problems.append((line, problem))
    return Template(tuple(sections), tuple(problems))


def _section(item: Any, line: int) -> tuple[Section | None, str]:
    if not isinstance(item, dict):
        return None, "a section must be a mapping with a `section` name"
    name = item.get("section")
    label = f"section `{excerpt(name)[1:-1]}`" if isinstance(name, str) else "a section"
    unknown = [key if isinstance(key, str) and len(key) <= 60 else excerpt(key)
               for key in item if key not in SECTION_KEYS][:8]
    if unknown:
        return None, (f"{label} has unknown key(s) {', '.join(unknown)} "
                      f"(known: {', '.join(SECTION_KEYS)})")
    if not isinstance(name, str) or not name.strip():
        return None, "a section needs a `section` name"
    role = item.get("role", "system")
    if role not in SECTION_ROLES:
        return None, (f"{label}: `role` must be one of {', '.join(SECTION_ROLES)}, "
                      f"not {excerpt(role)}")
    tool, content = item.get("tool"), item.get("content")
    if tool is not None and content is not None:
        return None, f"{label} has both `tool` and `content`; use one"
    if role == "expand":
        tool = tool if tool is not None else name
        if tool != "dm_history":
            return None, f"{label}: `role: expand` works on the `dm_history` tool, not `{tool}`"
    elif tool is None and content is None:
        return None, f"{label} needs `tool` or `content`"
    for key in ("tool", "result_field", "path", "format", "content", "provider",
                "provider_content"):
        value = tool if key == "tool" else item.get(key)
        if value is not None and not isinstance(value, str):
            return None, f"{label}: `{key}` must be a string"
    limit = item.get("limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        return None, f"{label}: `limit` must be a whole number"
    skip = item.get("skip_if_empty", False)
    if not isinstance(skip, bool):
        return None, f"{label}: `skip_if_empty` must be true or false"
    return Section(
        name=name, role=role, line=line, tool=tool, args=item.get("args"),
        result_field=item.get("result_field") or "content", path=item.get("path"),
        format=item.get("format"), content=content, skip_if_empty=skip, limit=limit,
        provider=item.get("provider"), provider_content=item.get("provider_content"),
    ), ""
