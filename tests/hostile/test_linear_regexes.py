"""Every regular expression of the package takes linear time on untrusted text.

Python's `re` backtracks: `\\n\\n+(?=x)` over a run of newlines not followed by `x` retries
the run from each of its newlines, quadratic in the run, and holds the process (the regex
keeps the GIL) for as long. So each pattern of the package is in `REVIEWED` with the reason
it is linear, as it is used: `SCAN` (search, finditer, sub, split: an attempt at every
position) or `ANCHORED` (match and fullmatch: one attempt). The tests find the patterns by
introspection (every module-level compiled pattern or bound method of one, and the
functions in `FACTORIES` that build one) and their uses by reading the source, so a new
pattern, a changed one or a pattern used in a new way fails here until it is reviewed; and
they run each one over the corpus of `runs.py`, as it is used. No test times anything
(docs/performance.md, "Linear patterns"): the review is the guard, and the runs make a
wrong review cost minutes instead of passing.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import random
import re
import types
from collections.abc import Callable
from pathlib import Path

import pytest

import webapp
from tests.support.runs import CHARS, char_runs, runs, shape_runs
from webapp import tokens
from webapp.nostr import keys as nostr_keys
from webapp.render import blocks
from webapp.store import labels as store_labels
from webapp.store import rules as store_rules
from webapp.web import access

SCAN, ANCHORED = "scan", "anchored"

#: Every pattern of the package: how it may be used, and why it is linear so used.
REVIEWED: dict[re.Pattern[str], tuple[str, str]] = {
    re.compile(r"\n\n+"): (SCAN, "an attempt at a newline takes the whole run and succeeds, "
                                 "or fails at the next character"),
    re.compile(r"\n+"): (SCAN, "an attempt at a newline takes the whole run and succeeds; "
                               "at any other character it fails at once"),
    re.compile(r"[.\[]"): (SCAN, "one character"),
    re.compile(r"\r\n|\r|\n"): (SCAN, "one or two characters"),
    re.compile(r"(?<!\S)\S*?\.[A-Za-z0-9]\S*"): (
        SCAN, "tried only at a word's start (the look-behind fails at once elsewhere); from "
              "there the lazy run and the last run stay within that word: each character is "
              "looked at a bounded number of times"),
    re.compile(r"[\[\]]"): (SCAN, "one character"),
    re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]"): (SCAN, "one character"),
    re.compile("[\n\v\f\r\x1c\x1d\x1e\x85\u2028\u2029]"): (SCAN, "one character"),
    re.compile(r"[^a-z0-9-]"): (SCAN, "one character"),
    re.compile(r"<[A-Za-z/!?]"): (SCAN, "two characters"),
    re.compile(r"[ \t\n\r]*"): (SCAN, "one run of one class: never fails, never gives back"),
    re.compile("`+"): (SCAN, "one run of one class: never fails, never gives back"),
    re.compile(r"[^a-z0-9]+"): (SCAN, "one run of one class: never fails, never gives back"),
    re.compile(r"[a-z0-9][a-z0-9._-]*"): (SCAN, "a character, then a run that never fails"),
    re.compile(r"\w+|\s+|[^\w\s]"): (
        SCAN, "three disjoint branches, each a run or one character: every attempt succeeds, "
              "nothing is given back"),
    re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*"): (
        SCAN, "the hyphen is outside the class, so repetitions cannot re-split a run; never "
              "fails after its first character"),
    re.compile(r"\n {0,3}#(?=#{0,4}(?:[ \t\n]|\Z))"): (SCAN, "at most eleven characters from "
                                                            "a newline"),
    re.compile(r"\n[ \t]*(?:```|~~~|[-=]+[ \t]*(?:\n|\Z)|#{6}(?:[ \t\n]|\Z))"): (
        SCAN, "starts at a newline and reads only the line after it; each run is followed by "
              "what it cannot match, so it is given back once"),
    re.compile(r"^[ \t]*(?:```|~~~)", re.MULTILINE): (SCAN, "only at a line's start, reading "
                                                            "its leading blanks"),
    re.compile(r"^[ \t]*(?:[#>=]|[-*+](?:[ \t]|$)|\d+\.(?:[ \t]|$))", re.MULTILINE): (
        SCAN, "only at a line's start; its runs (blanks, digits) are followed by what they "
              "cannot match, read and given back once"),
    re.compile(r"^---[ \t]*$", re.MULTILINE): (SCAN, "only at a line's start, reading that line"),
    re.compile(r"\{\{[ \t]*([^\s{}]+)[ \t]*\}\}"): (
        SCAN, "starts at `{{`; its runs stop at the next `{`, so two attempts never read the "
              "same character, and each run is given back once"),
    re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]'): (
        SCAN, "after its quote, runs without a quote or backslash, each after an escape: the "
              "run stops where an escape starts, and the closing quote is optional, so an "
              "attempt never fails after its quote and nothing is given back"),
    re.compile(r'"([0-9a-f]{16}):([0-9]+)"'): (
        SCAN, "starts at a quote; sixteen characters, then a digit run that ends at the quote "
              "it needs: the digit runs of two attempts do not overlap"),
    re.compile(r"(```|~~~)[A-Za-z0-9_-]*\n"): (SCAN, "starts at three backticks or tildes; "
                                                     "the run's class holds neither, so two "
                                                     "attempts never read the same run"),
    re.compile(r"line (\d+), column (\d+)"): (SCAN, "starts at `line `; its digit runs end "
                                                    "before any other attempt can start"),
    re.compile(r"[=-]+(?:\n|\Z)"): (ANCHORED, "one attempt after a fence's opening line: the "
                                              "run is given back once"),
    re.compile(r"-?[0.]*[1-9]"): (ANCHORED, "one attempt at a number's start: the run is "
                                            "given back once"),
    re.compile(r"<!-- context-log: (?P<body>[^\n]*) -->\Z"): (
        ANCHORED, "one attempt at a line's start: the run is given back once"),
    re.compile(r"(\d+) errors?, (\d+) warnings?, (\d+) infos?\Z"): (
        ANCHORED, "one attempt at the start: each digit run is given back once"),
    store_rules._INVISIBLE: (SCAN, "one character"),
    nostr_keys._HEX64: (ANCHORED, "fullmatch only: a bounded run of 64 characters"),
    nostr_keys._HEX128: (ANCHORED, "fullmatch only: a bounded run of 128 characters"),
    store_labels._LABEL: (ANCHORED, "one attempt: a character, then a run of at most 63 "
                                    "characters, given back once"),
    store_rules._SUB_ROUTE: (
        SCAN, "starts at a slash and reads at most the longest sub-route, then the end: each "
              "attempt is bounded by a constant"),
    access._LOCAL_HOST: (ANCHORED, "one attempt at a Host header's start: each branch is a run "
                                   "of at most 45 characters, given back once"),
    re.compile(r"(?m)^([ \t]*(?:-[ \t]+)?tool:[ \t]*)([\"']?)lookup\2([ \t]*(?:#.*)?)$"): (
        SCAN, "only at a line's start, reading that line: each run is followed by what it "
              "cannot match, `.*` runs to the line's end"),
}

#: Functions that build a pattern from their arguments: the arguments to build one with.
FACTORIES: dict[tuple[str, str], tuple[str, ...]] = {
    ("webapp.pipeline.analysis", "_template_tool"): ("lookup",),
}

_SCANNING = {"search", "finditer", "findall", "sub", "subn", "split"}
_ANCHORING = {"match", "fullmatch"}
_RE_FUNCTIONS = _SCANNING | _ANCHORING | {"compile"}
_PACKAGE = Path(webapp.__file__).parent


def _modules() -> list[types.ModuleType]:
    return [importlib.import_module(info.name)
            for info in pkgutil.walk_packages(webapp.__path__, "webapp.")]


def _holders() -> dict[re.Pattern[str], list[tuple[str, str, str | None]]]:
    """Each module-level pattern: where it is held, `(module, name, method)`, with the
    method when the name holds a bound method of the pattern (`re.compile(...).match`)."""
    found: dict[re.Pattern[str], list[tuple[str, str, str | None]]] = {}
    for module in _modules():
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                found.setdefault(value, []).append((module.__name__, name, None))
            elif isinstance(value, types.BuiltinMethodType) \
                    and isinstance(value.__self__, re.Pattern):
                found.setdefault(value.__self__, []).append(
                    (module.__name__, name, value.__name__))
    return found


def _built() -> dict[re.Pattern[str], str]:
    """The patterns `FACTORIES` build, and the factory of each."""
    return {getattr(importlib.import_module(module), function)(*args): f"{module}.{function}"
            for (module, function), args in FACTORIES.items()}


def _trees() -> dict[str, ast.Module]:
    return {".".join(path.relative_to(_PACKAGE.parent).with_suffix("").parts)
            .removesuffix(".__init__"): ast.parse(path.read_text(encoding="utf-8"))
            for path in sorted(_PACKAGE.rglob("*.py"))}


def _uses(name: str, trees: list[ast.Module]) -> set[str]:
    """The methods called on `name` in `trees`; `other` where it is used any other way."""
    uses = set()
    for tree in trees:
        parents = {child: parent for parent in ast.walk(tree)
                   for child in ast.iter_child_nodes(parent)}
        for node in ast.walk(tree):
            named = (isinstance(node, ast.Name) and node.id == name) or \
                    (isinstance(node, ast.Attribute) and node.attr == name)
            if not named or not isinstance(node.ctx, ast.Load):
                continue
            parent = parents.get(node)
            if isinstance(parent, ast.Attribute) and parent.value is node:
                uses.add(parent.attr if parent.attr in _SCANNING | _ANCHORING else "other")
            else:
                uses.add("other")
    return uses


def _use(pattern: re.Pattern[str], holders: list[tuple[str, str, str | None]],
         trees: dict[str, ast.Module]) -> str:
    """`ANCHORED` if the package only ever matches `pattern` at one position, else `SCAN`."""
    uses: set[str] = set()
    for module, name, method in holders:
        if method is not None:
            uses.add(method)
        else:  # a private name is used in its module only
            uses |= _uses(name, [trees[module]] if name.startswith("_") else list(trees.values()))
    return ANCHORED if uses <= _ANCHORING else SCAN


def test_every_pattern_is_reviewed() -> None:
    found = set(_holders()) | set(_built())
    unreviewed = [f"{p.pattern!r} (flags {p.flags})" for p in found - set(REVIEWED)]
    assert not unreviewed, f"review each pattern and add it to REVIEWED: {unreviewed}"
    assert set(REVIEWED) <= found, f"not in the package any more: {set(REVIEWED) - found}"


def test_patterns_are_used_as_reviewed() -> None:
    trees = _trees()
    for pattern, holders in _holders().items():
        if REVIEWED[pattern][0] == ANCHORED:
            assert _use(pattern, holders, trees) == ANCHORED, (
                f"{holders} is reviewed for match and fullmatch only, and is searched: "
                "review it for a search")


def test_patterns_are_compiled_at_module_level_or_in_a_factory() -> None:
    """A pattern written inside a function is out of the introspection's sight."""
    for module, tree in _trees().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.module != "re", f"{module}: use `import re` and `re.compile`"
            if isinstance(node, ast.Import):
                assert all(alias.asname is None for alias in node.names if alias.name == "re")
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) \
                        and isinstance(inner.func.value, ast.Name) \
                        and inner.func.value.id == "re" and inner.func.attr in _RE_FUNCTIONS:
                    name = getattr(node, "name", "<lambda>")
                    assert (module, name) in FACTORIES, (
                        f"{module}.{name} builds a pattern: compile it at module level, or "
                        "list the function in FACTORIES")


def _runners() -> list[Callable[[str], object]]:
    """Each reviewed pattern, as a function that runs it over a text as it is reviewed."""
    def scan(pattern: re.Pattern[str]) -> Callable[[str], object]:
        # The search loop of finditer and sub, without a match object for each match.
        return lambda text: pattern.subn("", text)

    def anchored(pattern: re.Pattern[str]) -> Callable[[str], object]:
        return lambda text: (pattern.match(text), pattern.fullmatch(text))

    return [scan(p) if use == SCAN else anchored(p) for p, (use, _) in REVIEWED.items()]


def _run_all(texts: list[str]) -> int:
    """Run every reviewed pattern over every text as it is reviewed; how many runs ended.
    A pattern that is not linear does not end in time, and pytest-timeout fails the test."""
    runners, ended = _runners(), 0
    for text in texts:
        for run in runners:
            run(text)
            ended += 1
    return ended


@pytest.mark.parametrize("char", CHARS, ids=lambda char: f"U+{ord(char):04X}")
def test_every_pattern_over_the_runs_of_each_character(char: str) -> None:
    texts = [text for _, text in char_runs(char)]
    assert max(map(len, texts)) >= 100_000  # runs long enough for a quadratic scan to show
    assert _run_all(texts) == len(texts) * len(REVIEWED)


def test_every_pattern_over_the_hostile_shapes() -> None:
    texts = [text for _, text in shape_runs()]
    assert max(map(len, texts)) >= 100_000
    assert _run_all(texts) == len(texts) * len(REVIEWED)


# The lookaheads the token pieces and the render blocks used to find their cuts with: the
# oracle their linear scans must agree with, on text small enough for it.
_TOKEN_CUT = re.compile(r"\n\n+(?=[^\s/])")
_BLOCK_GAP = re.compile(r"\n\n+(?=[A-Za-z#])")


def _texts(seed: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = ["\n", "\n", "\n", " ", "\t", "\u3000", "\x85", "/", "a", "Z", "#", "-", "é",
                "[", "]", "(", ")", "`", "```", "<"]
    return ["".join(rng.choice(alphabet) for _ in range(rng.randrange(60)))
            for _ in range(3_000)]


def test_token_pieces_cut_where_the_lookahead_did() -> None:
    for text in _texts(1):
        cuts = [m.end() for m in _TOKEN_CUT.finditer(text)]
        expected = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        assert list(tokens.pieces(text)) == expected, repr(text)


def test_blocks_cut_where_the_lookahead_did(monkeypatch: pytest.MonkeyPatch) -> None:
    """The old pattern in the cutting loop gives the same blocks as the scan."""
    texts = _texts(2)
    ours = [(blocks.markdown_blocks(t), blocks.source_blocks(t)) for t in texts]

    class Lookahead:
        """The old `_GAP`, with the test for the next character passing every run it found."""

        @staticmethod
        def finditer(text: str) -> object:
            return _BLOCK_GAP.finditer(text)

    monkeypatch.setattr(blocks, "_NEWLINE_RUN", Lookahead)
    monkeypatch.setattr(blocks, "_structure", type(blocks._structure)("oracle", 8))
    assert ours == [(blocks.markdown_blocks(t), blocks.source_blocks(t)) for t in texts]


_BLANK_RUNS = [*shape_runs(), *char_runs("\n"), *char_runs(" "), *char_runs("\u3000")]


@pytest.mark.parametrize("name, text", _BLANK_RUNS, ids=[name for name, _ in _BLANK_RUNS])
def test_token_pieces_and_blocks_over_the_runs(name: str, text: str) -> None:
    assert "".join(tokens.pieces(text)) == text
    assert "".join(blocks.markdown_blocks(text)) == text
    assert "".join(blocks.source_blocks(text)) == text


def test_the_corpus_holds_the_runs_that_hurt() -> None:
    names = {name for name, _ in runs(10)}
    assert {"blank lines before an indented line", "U+000A run + ' '", "U+3000 lines",
            "link openers", "thematic breaks"} <= names
