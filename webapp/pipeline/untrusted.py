"""Reading untrusted text at bounded cost: YAML without aliases, JSON of bounded depth
whose numbers stay exactly as written, and short excerpts of user values for messages.

Skills, tool results and SKILL.md files come from other people and other agents. A few
hundred bytes of YAML aliases expand to gigabytes, deep nesting exhausts the stack, and a
message that quotes a huge value echoes it back. Every parse of untrusted YAML or JSON in
the app goes through this module, and every message quoting a user value uses `excerpt`.
"""

from __future__ import annotations

import json
import math
import re
import reprlib
import secrets
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


def is_digits(text: str) -> bool:
    """Whether `text` is one or more ASCII digits: the one rule of what a digit is.
    `str.isdigit` alone is true for `²`, which `int` refuses, and for `١`, which it reads."""
    return text.isascii() and text.isdigit()


def whole_number(text: str, most_digits: int = 9) -> int | None:
    """`text` as a whole number when it is 1 to `most_digits` ASCII digits, else None: the
    one reading of a count or an index from text (a long run of digits counts nothing)."""
    return int(text) if len(text) <= most_digits and is_digits(text) else None


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


# A JSON string (escapes included) or a bracket: strings are skipped whole, a run of plain
# characters at a time (the loop unrolled: ten times faster than one character a step).
_JSON_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')


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


def json_containers(text: str) -> int:
    """How many arrays and objects `text` opens: one linear scan, strings skipped, so a
    message of a million tiny arrays is refused before the parser builds them."""
    return sum(1 for match in _JSON_TOKENS.finditer(text) if match.group() in "[{")


class JsonNumber:
    """A JSON number that Python's int or float cannot hold exactly, kept as its text.

    An integer of more than `MAX_INT_DIGITS` digits (Python converts those in quadratic
    time, and refuses above 4,300), a number beyond a float's range (`1e999`, which
    `float` turns into infinity) and one too small for it (`1e-999`, which would become
    0.0) are kept this way, so they are written back exactly as they were written.
    Everything else is a plain int or float (a float keeps a double's 17 digits, as JSON
    parsers do).
    """

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JsonNumber) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


#: The longest integer read as a Python int; a longer one is a `JsonNumber`.
MAX_INT_DIGITS = 4000


def _read_int(text: str) -> int | JsonNumber:
    return int(text) if len(text) <= MAX_INT_DIGITS else JsonNumber(text)


def _read_float(text: str) -> float | JsonNumber:
    number = float(text)
    if not math.isfinite(number) or (number == 0 and _NONZERO_MANTISSA(text)):
        return JsonNumber(text)  # past a float's range, or so small it would become 0.0
    return number


_NONZERO_MANTISSA = re.compile(r"-?[0.]*[1-9]").match


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(parse_int=_read_int, parse_float=_read_float,
                            parse_constant=_refuse_constant)


def read_json(text: str | bytes) -> Any:
    """JSON this app wrote itself (the database's JSON columns; a driver may hand over
    UTF-8 bytes) back into values, numbers exactly as written (see `JsonNumber`).
    Untrusted text goes through `loads_json`."""
    return _DECODER.decode(text.decode("utf-8") if isinstance(text, bytes) else text)


def loads_json(text: str) -> Any:
    """`json.loads(text)` for untrusted text, numbers kept exactly (see `JsonNumber`).

    Raises:
        json.JSONDecodeError: a syntax error, nesting deeper than `MAX_DEPTH`, or `NaN` /
            `Infinity` (which are not JSON); `lineno` and `colno` say where.
    """
    where = json_depth_error(text)
    if where is not None:
        line, column = where
        pos = _position(text, line, column)
        raise json.JSONDecodeError(f"nested more than {MAX_DEPTH} levels deep", text, pos)
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # NaN or Infinity: the scanner has no position to give
        raise json.JSONDecodeError(str(exc), text, 0) from None


def dumps_json(value: Any, **options: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, **options)`, writing each `JsonNumber` as the
    number it was written as.

    The json module has no hook for raw output, so each `JsonNumber` is first written as
    a string holding a random token (through `default`, which costs nothing when there is
    none), and the quoted tokens are then replaced by the numbers' text.

    Raises:
        TypeError, ValueError: a value JSON cannot hold, as `json.dumps` raises them.
    """
    numbers: list[str] = []
    token = secrets.token_hex(8)

    def default(obj: Any) -> Any:
        if isinstance(obj, JsonNumber):
            numbers.append(obj.text)
            return f"{token}:{len(numbers) - 1}"
        if user_default is not None:
            return user_default(obj)
        raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")

    user_default = options.pop("default", None)
    options.setdefault("ensure_ascii", False)
    text = json.dumps(value, default=default, **options)
    if not numbers:
        return text
    # A key is a str, never a JsonNumber, so every token sits where a value does; a string
    # of the same shape with another token is left as it is.
    return _NUMBER_TOKEN.sub(lambda m: numbers[int(m[2])] if m[1] == token else m[0], text)


# A quoted token written for a `JsonNumber` by `dumps_json`: the token, then the number's index.
_NUMBER_TOKEN = re.compile(r'"([0-9a-f]{16}):([0-9]+)"')


def _position(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + column - 1
