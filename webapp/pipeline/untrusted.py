"""Reading untrusted text at bounded cost: YAML without aliases, JSON of bounded depth,
and short excerpts of user values for messages.

Skills, tool results and SKILL.md files come from other people and other agents. A few
hundred bytes of YAML aliases expand to gigabytes, deep nesting exhausts the stack, and a
message that quotes a huge value echoes it back. Every parse of untrusted YAML or JSON in
the app goes through this module, and every message quoting a user value uses `excerpt`.
"""

from __future__ import annotations

import json
import re
import reprlib
from typing import Any

import yaml

#: The deepest nesting of lists and mappings accepted in YAML and JSON.
MAX_DEPTH = 64
#: The most characters of a user value a message quotes.
EXCERPT_CHARS = 200

_repr = reprlib.Repr()
_repr.maxlevel = 3
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxdict = 8
_repr.maxstring = _repr.maxother = EXCERPT_CHARS


def excerpt(value: Any) -> str:
    """`repr(value)`, cut to about `EXCERPT_CHARS` characters at bounded cost."""
    text = _repr.repr(value)
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS - 1] + "…"


class UntrustedYamlError(yaml.YAMLError):
    """YAML that is well formed but refused: an anchor, an alias, or nesting too deep."""

    def __init__(self, problem: str, mark: Any):
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark


class SafeYamlLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing anchors and aliases (which let a few hundred bytes
    stand for gigabytes) and nesting deeper than `MAX_DEPTH`."""

    def __init__(self, stream: Any):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise UntrustedYamlError("aliases (*name) are not allowed", event.start_mark)
        if getattr(event, "anchor", None) is not None:
            raise UntrustedYamlError("anchors (&name) are not allowed", event.start_mark)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise UntrustedYamlError(f"nested more than {MAX_DEPTH} levels deep",
                                         event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_yaml(text: str) -> tuple[Any, Any]:
    """The YAML document in `text` and its node (None, None for an empty document).

    Raises:
        yaml.YAMLError: a syntax error, an anchor or alias, or nesting too deep; its
            `problem_mark` says where.
    """
    loader = SafeYamlLoader(text)
    try:
        node = loader.get_single_node()
        return (loader.construct_document(node) if node is not None else None), node
    finally:
        loader.dispose()


# A JSON string (escapes included) or a bracket: strings are skipped whole.
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')


def json_depth_error(text: str) -> tuple[int, int] | None:
    """Where (1-based line and column) `text` nests deeper than `MAX_DEPTH`, or None.

    One linear scan over the brackets outside strings, so a deep document is refused
    before the parser recurses into it.
    """
    depth = 0
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                start = match.start()
                line = text.count("\n", 0, start) + 1
                return line, start - (text.rfind("\n", 0, start) + 1) + 1
        elif token in "]}":
            depth -= 1
    return None


def loads_json(text: str) -> Any:
    """`json.loads(text)` for untrusted text.

    Raises:
        json.JSONDecodeError: a syntax error, nesting deeper than `MAX_DEPTH`, or a number
            Python will not convert (over 4,300 digits); `lineno` and `colno` say where.
    """
    where = json_depth_error(text)
    if where is not None:
        line, column = where
        pos = _position(text, line, column)
        raise json.JSONDecodeError(f"nested more than {MAX_DEPTH} levels deep", text, pos)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:
        # Python refuses to convert an integer of more than 4,300 digits (its guard
        # against quadratic conversion); such a number is refused, not cut.
        raise json.JSONDecodeError("a number has more than 4,300 digits", text, 0) from None


def _position(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + column - 1
