"""A SKILL.md's head kept as written, and changed where it must be, key by key.

The head is everything before the body: the opening `---` line (after a byte-order mark,
if the file had one), the YAML frontmatter, the closing `---` line and the one blank line
after it. Kept verbatim, it writes the file back byte for byte: keys of any client's
dialect in their order, comments, quoting and folded scalars included. When a field the
editor owns changes, only that key's lines are rewritten (`patch_head`); every other key
keeps its text. A head whose layout cannot be followed key by key (a flow mapping, a key
that is not plain text) is written again whole, keys in their order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml

from webapp.bounds.lru import LRU
from webapp.pipeline import excerpt, load_yaml

BOM = "\ufeff"
_FENCE_CLOSE = re.compile(r"^---[ \t]*$", re.MULTILINE)


class SkillMdError(ValueError):
    """A `SKILL.md`, a skill's folder or a zip of them that cannot be read; `.problems` lists
    `(where, reason)`: a frontmatter field, a file's path or a place in the upload."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = list(problems)
        super().__init__("; ".join(f"{field}: {reason}" for field, reason in self.problems))


def error(field: str, reason: str) -> SkillMdError:
    return SkillMdError([(field, reason)])


def split_head(text: str) -> tuple[str, str]:
    """`(head, body)` of a SKILL.md's text (LF line ends).

    Raises:
        SkillMdError: the text does not open with a `---` line, or the frontmatter is
            not closed by one.
    """
    start = 1 if text.startswith(BOM) else 0
    if not text.startswith("---\n", start):
        raise error("frontmatter",
                    "SKILL.md must start with a line '---' opening the YAML frontmatter")
    close = _FENCE_CLOSE.search(text, start + 4)
    if close is None:
        raise error("frontmatter", "is not closed by a line '---'")
    end = close.end() + 1 if text.startswith("\n", close.end()) else close.end()
    if text.startswith("\n", end):  # the blank line between the head and the body
        end += 1
    return text[:end], text[end:]


def head_parts(head: str) -> tuple[str, str, str]:
    """The opening fence, the YAML and the rest of a head (its closing fence and blank line)."""
    start = 1 if head.startswith(BOM) else 0
    close = _FENCE_CLOSE.search(head, start + 4)
    if close is None:  # only a head `split_head` gave is ever passed
        raise error("frontmatter", "is not closed by a line '---'")
    return head[:start + 4], head[start + 4:close.start()], head[close.start():]


#: Heads parsed, by their text (a head is never changed, only replaced): the editor's
#: preview reads every skill's head on each keystroke, for the names they export.
_PARSED: LRU[str, tuple[dict[str, Any], dict[str, int]]] = LRU(
    "parsed SKILL.md heads", 4_000_000, lambda head, _: len(head))


def parse_head(head: str) -> tuple[dict[str, Any], dict[str, int]]:
    """The frontmatter mapping of a head (a new dict; what it holds is shared: read it, do
    not change it), and the line in the file of each top-level key.

    Raises:
        SkillMdError: invalid YAML (with its line and column in the file), an anchor or an
            alias, or frontmatter that is not a mapping.
    """
    parsed = _PARSED.get(head)
    if parsed is None:
        parsed = _PARSED.put(head, _parse(head))
    return dict(parsed[0]), parsed[1]


def _parse(head: str) -> tuple[dict[str, Any], dict[str, int]]:
    _, text, _ = head_parts(head)
    try:
        data, node = load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        reason = getattr(exc, "problem", None) or excerpt(str(exc))
        # +2: marks count from 0, and the file's first line is the opening `---`.
        where = f" at line {mark.line + 2}, column {mark.column + 1}" if mark else ""
        raise error("frontmatter", f"invalid YAML{where}: {reason}") from None
    if data is None:
        return {}, {}
    if not isinstance(data, dict):
        raise error("frontmatter", f"must be a YAML mapping, not {type_name(data)}")
    lines = {}
    for key, _ in node.value:
        if isinstance(key, yaml.ScalarNode):
            lines.setdefault(key.value, key.start_mark.line + 2)
    return data, lines


def patch_head(head: str, values: Mapping[str, Any]) -> str:
    """`head` with each top-level key of `values` set to its value: a key it has is
    rewritten where it is, a key it lacks is added at the end; the rest stays as written."""
    opening, text, closing = head_parts(head)
    data, _ = parse_head(head)
    wanted = {**data, **values}
    patched = _patch_keys(text, values)
    if patched is None or _load(patched) != wanted:
        patched = dump_yaml(wanted)  # a layout that cannot be followed: written again whole
    return opening + patched + closing


def _patch_keys(text: str, values: Mapping[str, Any]) -> str | None:
    data, node = load_yaml(text)
    if node is None:
        return dump_yaml(dict(values))
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    patched = _patch_block(lines, node, values, data, len(lines), "")
    return None if patched is None else "".join(lines[:node.start_mark.line] + patched)


def _patch_block(lines: list[str], node: Any, values: Mapping[str, Any],
                 current: Mapping[str, Any], stop_line: int, indent: str) -> list[str] | None:
    """The lines of the block mapping `node` (from its first key to `stop_line`) with the
    keys of `values` set: a key whose value is a block mapping, set to a mapping, has only
    its changed keys rewritten (so `metadata.layer` changes and `metadata.owner` keeps its
    quoting); every other key keeps its lines. None for a layout that cannot be followed."""
    if not isinstance(node, yaml.MappingNode) or node.flow_style or not node.value or not all(
            isinstance(key, yaml.ScalarNode) for key, _ in node.value):
        return None
    starts = [key.start_mark.line for key, _ in node.value] + [stop_line]
    out: list[str] = []
    for index, (key, value) in enumerate(node.value):
        begin, stop = starts[index], starts[index + 1]
        end = value.end_mark.line + (1 if value.end_mark.column else 0)
        end = min(max(end, begin + 1), stop)
        if key.value not in values:
            out += lines[begin:end]
        else:
            out += _patch_value(lines, (key, value), current.get(key.value),
                                values[key.value], (begin, end), indent)
        out += lines[end:stop]  # comments and blank lines after the value stay
    present = {key.value for key, _ in node.value}
    out += [_indented(dump_yaml({key: value}), indent)
            for key, value in values.items() if key not in present]
    return out


def _patch_value(lines: list[str], item: tuple[Any, Any], current: Any, wanted: Any,
                 span: tuple[int, int], indent: str) -> list[str]:
    """The lines `span` of one key (`item`: its key and value nodes) set to `wanted`: key
    by key inside a block mapping that keeps all its keys, else the key written again."""
    key, node = item
    begin, end = span
    rewritten = [_indented(dump_yaml({key.value: wanted}), indent)]
    if not (isinstance(wanted, Mapping) and isinstance(current, Mapping)
            and isinstance(node, yaml.MappingNode) and node.start_mark.line > key.start_mark.line
            and set(current) <= set(wanted)):
        return rewritten  # not a block mapping keeping its keys: written again
    changed = {sub: value for sub, value in wanted.items()
               if sub not in current or current[sub] != value}
    inner = _patch_block(lines, node, changed, current, end, " " * node.start_mark.column)
    return rewritten if inner is None else lines[begin:node.start_mark.line] + inner


def _indented(text: str, indent: str) -> str:
    """Block YAML written at `indent` (every line but blank ones)."""
    if not indent:
        return text
    return "".join(indent + line if line.strip("\n") else line
                   for line in text.splitlines(keepends=True))


def _load(text: str) -> Any:
    try:
        return load_yaml(text)[0] or {}
    except yaml.YAMLError:
        return None


def dump_yaml(fields: Mapping[str, Any]) -> str:
    """`fields` as block YAML, keys in their order, reading back as the same values."""
    text = _yaml(fields, allow_unicode=True)
    if _load(text) != dict(fields):
        # PyYAML writes NEL and the Unicode line separators raw, and reads them back as
        # spaces; with every non-ASCII character escaped the text survives exactly.
        text = _yaml(fields, allow_unicode=False)
    return text


def _yaml(fields: Mapping[str, Any], *, allow_unicode: bool) -> str:
    return yaml.safe_dump(dict(fields), sort_keys=False, allow_unicode=allow_unicode,
                          default_flow_style=False, width=1 << 16)


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "number", float: "number", str: "string", list: "list",
            dict: "mapping"}.get(type(value), type(value).__name__)
