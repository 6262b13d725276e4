"""Every rule a write must obey, written once: the web forms, the bundle import (web and
CLI), the SKILL.md import and the store's own functions all check fields here.

- the bundle loader's rules for one item (`pipeline.check_item`), so what can be saved
  can always be exported and imported again;
- no NUL (U+0000) in text: PostgreSQL cannot store one;
- no string longer than its column: SQLite would store it, PostgreSQL refuses it, so a
  workspace could not move between them. The lengths are read from the models once;
- whole numbers within their range (`INTEGER_RANGES`): SQLite holds 64 bits, PostgreSQL's
  `integer` 32, and a number no row can have is refused before a query is made;
- an agent's name is usable in an address and a file name (`agent_name_problem`);
- a name (an agent's, an item's, a skill's d_tag) has no bidirectional control and no
  zero-width character, which would make it look like another (`invisible_problem`), and
  two names of the same kind are the same name when their NFKC forms are equal
  (`name_key`, `same_name`);
- a d_tag never reads as the address of a page of another skill: it does not end in one
  of a skill's sub-routes (`SKILL_SUB_ROUTES`, `d_tag_route_problem`);
- no text holds a lone surrogate (U+D800-U+DFFF), which is not Unicode text and cannot
  be stored or sent (`surrogate_path`);
- a new adoption order names every live skill exactly once (`order_problem`);
- line ends: every stored text has LF line ends (`normalized`, by the pipeline's
  `lf_line_ends`: CRLF and a lone CR become LF);
- a skill's files obey the path rule and limits of `agentskills.file_set_problems`
  (`folders.check_files`, before every write of a file set).

`item_problems` reports with paths relative to the item (`d_tag`,
`results_by_args[1].args`), `bundle_problems` with JSON paths (`$.skills[0].d_tag`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import JSON

from webapp.pipeline import ITEM_SECTIONS, check_item, is_digits, item_field, lf_line_ends
from webapp.schema import models

from .errors import ValidationError

NUL_MESSAGE = "must not contain NUL characters (U+0000)"
AGENT_NAME_SLASH_MESSAGE = "must not contain '/' (the agent's pages could not be addressed)"

#: The largest id, version or page number: PostgreSQL's `integer` (and SQLite's within it).
MAX_ID = 2**31 - 1
#: The inclusive range of each whole number the app stores or looks up, by name.
INTEGER_RANGES: dict[str, tuple[int, int]] = {
    "id": (1, MAX_ID), "version": (1, MAX_ID), "expected_version": (1, MAX_ID),
    "page": (1, MAX_ID), "layer": (1, 2), "limit": (0, 1_000_000),
    "expected_latest": (0, MAX_ID),
    "max_array_items": (0, 1_000_000), "context_window": (0, 100_000_000)}
#: Digits read at most from a whole number's text (a longer one is out of every range).
_MAX_DIGITS = 20

_MODELS = {"agent": models.Agent, "skills": models.Skill, "tools": models.Tool,
           "variables": models.Variable, "scenarios": models.Scenario}

#: The longest string each bounded column of each bundle section can hold.
COLUMN_LENGTHS: dict[str, dict[str, int]] = {
    section: {column.name: column.type.length for column in model.__table__.columns
              if getattr(column.type, "length", None)}
    for section, model in _MODELS.items()}
#: The JSON columns of each bundle section: a string there is stored as JSON, escaped, so
#: it may hold NUL (a tool result or a scenario event is data, not text).
JSON_COLUMNS: dict[str, frozenset[str]] = {
    section: frozenset(column.name for column in model.__table__.columns
                       if isinstance(column.type, JSON))
    for section, model in _MODELS.items()}
#: A published snapshot's note: a line or a paragraph saying why, not a document.
NOTE_LENGTH = 2000
_TEXT_LENGTHS = {"context_log": {column.name: column.type.length
                                 for column in models.ContextLogEntry.__table__.columns
                                 if getattr(column.type, "length", None)},
                 "published_snapshots": {"note": NOTE_LENGTH},
                 "skill_revisions": {}}  # a revision's note: no column bound


def item_problems(section: str, item: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every problem with one item of bundle `section` (or the `agent`), as `(path, message)`
    with paths relative to the item; "" is the item as a whole."""
    problems = [(p.path, p.message) for p in check_item(section, dict(item))]
    lengths = COLUMN_LENGTHS[section]
    for key, value in item.items():
        # JSON values (even a bare string) are stored escaped: no NUL, no bound.
        if not isinstance(value, str) or key in JSON_COLUMNS[section]:
            continue
        if "\x00" in value:
            problems.append((key, NUL_MESSAGE))
        if key in lengths and len(value) > lengths[key]:
            problems.append((key, f"must be at most {lengths[key]} characters, "
                                  f"not {len(value)}"))
    for key, value in item.items():
        if key in INTEGER_RANGES and isinstance(value, int) and not isinstance(value, bool):
            problem = integer_problem(key, value)
            if problem and not any(path == key for path, _ in problems):
                problems.append((key, problem))
    name = item.get("name")
    if section == "agent" and isinstance(name, str):
        problem = agent_name_problem(name)
        if problem:
            problems.append(("name", problem))
    for key in ("name", "d_tag"):
        value = item.get(key)
        problem = invisible_problem(value) if isinstance(value, str) else None
        if problem:
            problems.append((key, problem))
    d_tag = item.get("d_tag")
    if section == "skills" and isinstance(d_tag, str):
        problem = d_tag_route_problem(d_tag)
        if problem:
            problems.append(("d_tag", problem))
    problems += [(path, SURROGATE_MESSAGE) for path in _surrogate_paths(item)]
    return problems


def skill_d_tag_problem(d_tag: str) -> str | None:
    """The first reason `d_tag` cannot be a skill's d_tag (the checks and message of
    `item_problems`, whatever other skills exist), or None: what a form checks as typed."""
    return next((message for path, message in item_problems(
        "skills", {"d_tag": d_tag, "content": ""}) if path == "d_tag"), None)


#: Characters a name must not hold: they are invisible or reorder what is shown, so
#: `é\u202egnp.exe` reads as `éexe.png` and `Simon\u200b` as `Simon`. The bidirectional
#: controls (embeddings, overrides, isolates, the marks LRM, RLM and ALM) and the
#: zero-width characters (ZWSP, ZWNJ, ZWJ, word joiner, BOM).
INVISIBLE = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)] + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u200e", "\u200f", "\u061c", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])
_INVISIBLE = re.compile("[" + "".join(sorted(INVISIBLE)) + "]")


def invisible_problem(name: str) -> str | None:
    """Why `name` cannot name anything (`INVISIBLE`), naming the first such character,
    or None."""
    found = _INVISIBLE.search(name)
    if found is None:
        return None
    return (f"must not contain bidirectional controls or zero-width characters "
            f"(U+{ord(found.group()):04X} at position {found.start() + 1}): "
            "they make a name look like another")


def name_key(name: str) -> str:
    """What two names are compared by: their NFKC form, so `Ｓimon` (a fullwidth S) and
    `ﬁle` (a ligature) are the names `Simon` and `file`."""
    return unicodedata.normalize("NFKC", name)


def same_name(name: str, names: Iterable[str]) -> str | None:
    """The first of `names` that is `name` or reads as it (`name_key`), or None."""
    key = name_key(name)
    return next((other for other in names if other == name or name_key(other) == key), None)


#: The sub-routes of a skill's address, after its d_tag: `/agents/<agent>/skills/<d_tag>/`
#: then one of these (`<id>` stands for a number). A d_tag ending in `/` and one of them
#: would be read as that page of another skill (`notes/enabled` as the toggle of `notes`),
#: so it is refused (`d_tag_route_problem`). The web layer's routes are checked against
#: this table by a test (tests/store/test_rules.py), so a new sub-route is added here too.
SKILL_SUB_ROUTES = ("preview", "enabled", "move", "log", "duplicate", "history",
                    "history/<id>", "history/<id>/restore", "delete", "restore", "export",
                    "tests/approve", "files", "files/raw", "files/delete", "frontmatter")
# `\d` as Werkzeug's number converter reads it (any Unicode digit).
_SUB_ROUTE = re.compile("/(?:" + "|".join(
    re.escape(route).replace(re.escape("<id>"), r"\d+") for route in SKILL_SUB_ROUTES) + r")\Z")


def d_tag_route_problem(d_tag: str) -> str | None:
    """Why `d_tag` would be read as the address of another skill's page, or None."""
    found = _SUB_ROUTE.search(d_tag)
    if found is None:
        return None
    return (f"must not end in {found.group()!r}: the address of this skill would be that of "
            f"a page of the skill {d_tag[:found.start()]!r}; choose another last part")


SURROGATE_MESSAGE = "must be Unicode text: it holds a lone surrogate (U+D800-U+DFFF)"


def surrogate_path(value: Any, path: str = "") -> str | None:
    """The path (`content`, `history[2].content`, a key's `history[2]`) of the first text
    in `value` (a JSON value; dict keys included) holding a lone surrogate, which a JSON
    `\\ud800` escape can give and which cannot be encoded, stored or sent; else None."""
    return next(_surrogate_paths(value, path), None)


def _surrogate_paths(value: Any, path: str = "") -> Iterator[str]:
    stack = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if not _encodes(item):
                yield where
        elif isinstance(item, Mapping):
            for key, inner in reversed(list(item.items())):
                inner_path = _join(where, str(key)) if where else str(key)
                if isinstance(key, str) and not _encodes(key):
                    yield inner_path
                stack.append((inner_path, inner))
        elif isinstance(item, (list, tuple)):
            stack += [(f"{where}[{i}]", inner) for i, inner in reversed(list(enumerate(item)))]


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")  # in C: far faster than looking at each character
    except UnicodeEncodeError:
        return False
    return True


def text_problems(section: str, fields: Mapping[str, Any]) -> list[tuple[str, str]]:
    """NUL and column-length problems of the text `fields` of a table that is not a bundle
    section (`context_log`, `published_snapshots`, `skill_revisions`)."""
    lengths = _TEXT_LENGTHS[section]
    problems = []
    for key, value in fields.items():
        if isinstance(value, str):
            if "\x00" in value:
                problems.append((key, NUL_MESSAGE))
            if key in lengths and len(value) > lengths[key]:
                problems.append((key, f"must be at most {lengths[key]} characters, "
                                      f"not {len(value)}"))
    return problems


def agent_name_problem(name: str) -> str | None:
    """Why `name` cannot name an agent, or None: it becomes a path segment of every page of
    the agent and the bundle's file name, so it has no `/`, no control character, is not
    `.` or `..` and has no space at either end (its length is the column's)."""
    if "/" in name:
        return AGENT_NAME_SLASH_MESSAGE
    if any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") for ch in name):
        return "must not contain control characters or line breaks"
    if name in (".", ".."):
        return "must not be '.' or '..' (the agent's pages could not be addressed)"
    if name != name.strip():
        return "must not start or end with a space"
    return None


def integer_problem(name: str, value: int) -> str | None:
    """Why `value` is outside the range of whole number `name` (`INTEGER_RANGES`), or None."""
    low, high = INTEGER_RANGES[name]
    if low <= value <= high:
        return None
    if high - low == 1:
        return f"must be {low} or {high}, not {_excerpt(str(value))}"
    bound = f"at least {low}" if value < low else f"at most {high}"
    return f"must be {bound}, not {_excerpt(str(value))}"


def parse_integer(name: str, value: Any) -> tuple[int | None, str | None]:
    """A whole number from a form's text or a JSON body's number, checked against its range:
    `(number, None)`, or `(None, why not)`. A float is accepted when it is whole."""
    if isinstance(value, bool) or value is None or value == "":
        return None, "is required" if value in (None, "") else "must be a whole number"
    if isinstance(value, float):
        if not value.is_integer():  # inf and nan included
            return None, f"must be a whole number, not {_excerpt(repr(value))}"
        value = int(value)
    elif isinstance(value, str):
        text = value.strip()
        digits = text[1:] if text[:1] in ("+", "-") else text
        if not is_digits(digits):  # one sign at most, then ASCII digits
            return None, f"must be a whole number, not {_excerpt(repr(value))}"
        if len(digits.lstrip("0")) > _MAX_DIGITS:
            high = INTEGER_RANGES[name][1]
            return None, f"must be at most {high}, not a {len(digits)}-digit number"
        value = int(text)
    elif not isinstance(value, int):
        return None, "must be a whole number"
    problem = integer_problem(name, value)
    return (None, problem) if problem else (value, None)


#: The longest name any item can have (a d_tag, a tool, binding or scenario name).
NAME_LENGTH = models.NAME_LENGTH

#: How many d_tags an order problem names of each kind (missing, unknown, repeated).
ORDER_NAMES_SHOWN = 5


def order_problem(order: Any, live: Sequence[str]) -> str | None:
    """What is wrong with `order` as the adoption order of the skills `live` (their
    d_tags), or None: it must be a list of d_tags naming each of them exactly once.

    The message names at most `ORDER_NAMES_SHOWN` d_tags of each kind, each cut short, so
    a hostile order of a million names gives a short answer (and costs linear time).
    """
    if isinstance(order, (str, bytes)) or not isinstance(order, Sequence):
        return "must be a list of d_tags"
    if not all(isinstance(d_tag, str) for d_tag in order):
        return "must be a list of d_tags (text)"
    counts, known = Counter(order), set(live)
    kinds = {"missing": [d for d in live if d not in counts],
             "unknown": [d for d in counts if d not in known],
             "repeated": [d for d, n in counts.items() if n > 1 and d in known]}
    found = [f"{kind}: {_names(d_tags)}" for kind, d_tags in kinds.items() if d_tags]
    return f"must list every skill once ({'; '.join(found)})" if found else None


def _names(d_tags: list[str]) -> str:
    shown = ", ".join(_excerpt(d) for d in d_tags[:ORDER_NAMES_SHOWN])
    more = len(d_tags) - ORDER_NAMES_SHOWN
    return f"{shown} and {more} more" if more > 0 else shown


def can_be_stored(text: str) -> bool:
    """Whether a name could be in the database at all: one with a NUL cannot (PostgreSQL
    refuses even to compare with it), so looking it up finds nothing without asking."""
    return "\x00" not in text


def normalized(item: Mapping[str, Any]) -> dict[str, Any]:
    """`item` with `lf_line_ends` applied to each text field and each text in a list of
    texts (a skill's triggers); JSON values are kept as they are."""
    out = dict(item)
    for key, value in item.items():
        if isinstance(value, str):
            out[key] = lf_line_ends(value)
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            out[key] = [lf_line_ends(v) for v in value]
    return out


def normalized_bundle(bundle: Mapping[str, Any]) -> dict[str, Any]:
    """A bundle dict with every item `normalized`."""
    out = dict(bundle)
    out["agent"] = normalized(bundle["agent"])
    for section in ITEM_SECTIONS:
        if section in bundle:
            out[section] = [normalized(item) for item in bundle[section]]
    return out


def _excerpt(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def check(section: str, item: Mapping[str, Any]) -> dict[str, Any]:
    """`item` `normalized`; raise `ValidationError` (by field name) unless it obeys every
    rule of `section`."""
    item = normalized(item)
    problems = item_problems(section, item)
    if problems:
        raise ValidationError([(item_field(path), message) for path, message in problems])
    return item


def bundle_problems(bundle: Mapping[str, Any], *, agent_name: str | None = None
                    ) -> list[tuple[str, str]]:
    """Every problem with a bundle dict (as `dump_bundle` writes one), with JSON paths.

    With `agent_name` (an import under another name) the agent is checked under that
    name, and a problem with it has the path `agent_name`.
    """
    agent = dict(bundle["agent"])
    if agent_name:
        agent["name"] = agent_name
    problems = []
    for path, message in item_problems("agent", agent):
        if agent_name and item_field(path) == "name":
            problems.append(("agent_name", message))
        else:
            problems.append((_join("$.agent", path), message))
    for section in ITEM_SECTIONS:
        for index, item in enumerate(bundle.get(section, ())):
            problems += [(_join(f"$.{section}[{index}]", path), message)
                         for path, message in item_problems(section, item)]
    # The bundle's loader refuses equal d_tags; these read the same and differ.
    seen: dict[str, tuple[int, str]] = {}
    for index, skill in enumerate(bundle.get("skills", ())):
        d_tag = skill.get("d_tag")
        if not isinstance(d_tag, str):
            continue
        first = seen.setdefault(name_key(d_tag), (index, d_tag))
        if first[1] != d_tag:
            problems.append((f"$.skills[{index}].d_tag",
                             f"reads as the d_tag {first[1]!r} of $.skills[{first[0]}]"))
    return problems


def check_bundle(bundle: Mapping[str, Any], *, agent_name: str | None = None) -> None:
    """Raise `ValidationError` (by JSON path) with every problem `bundle_problems` finds."""
    problems = bundle_problems(bundle, agent_name=agent_name)
    if problems:
        raise ValidationError(problems)


def _join(prefix: str, path: str) -> str:
    if not path:
        return prefix
    return prefix + path if path.startswith("[") else f"{prefix}.{path}"
