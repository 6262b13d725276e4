"""Budgets on output: what an assembly may make of its inputs, and how long a list of
problems may get.

A few bytes can ask for a lot: a `{{name}}` written 200 times copies its value 200
times, a skill embedded by every other skill is copied into each, 40,000 unknown names
make 40,000 warnings. So what expansion adds is bounded in proportion to what was given:

    added characters <= EXPANSION_FLOOR + EXPANSION_FACTOR * input characters

where the input is every skill's text (drafts in place) and the text of each value the
assembly resolves, counted once, and "added" is every character a reference or a value
copies into the text of a skill being run (a value's first use included). An embedded
skill's own expansion (its references, expanded once per assembly) may reach the budget
too, and all the copying of an assembly, those expansions included, `WORK_FACTOR` times
it. Past the budget a reference is left empty with a `reference-budget` error and a
value with a `value-budget` error naming it and the skill.

The problem list is bounded too (`limit_problems`): identical problems are said once with
their number, and a code lists at most `LISTED_PER_KIND` of them.

Every caller of `assemble` gets the same bounds (web, CLI, tests): they live here, and
assembly applies them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from .result import Diagnostic

#: What any assembly may add, however small its input: about 500,000 tokens, more than
#: twice the largest common context window, so no real agent meets it.
EXPANSION_FLOOR = 2_000_000
#: How many times its input an assembly may add on top of the floor.
EXPANSION_FACTOR = 4
#: All the copying an assembly may do, in budgets: the expansions of embedded skills too.
WORK_FACTOR = 4
#: How many of one kind of thing an answer lists (the problems of one code, the results
#: by args a tool's preview shows); the rest are counted in one notice.
LISTED_PER_KIND = 100
#: The most characters of a problem's message (a message quotes names, which an author
#: may make as long as a line).
MESSAGE_CHARS = 500


def expansion_budget(input_chars: int) -> int:
    """The most characters references and values may add to an assembly whose inputs
    hold `input_chars` characters."""
    return EXPANSION_FLOOR + EXPANSION_FACTOR * input_chars


class Allowance:
    """One assembly's spending against `expansion_budget`, its input counted as it is met.

    `grow(n)` adds `n` characters of input (a skill's text, a value resolved for the
    first time); `spend(n)` takes `n` characters of expansion if they fit and says
    whether they did.
    """

    __slots__ = ("input", "spent", "work")

    def __init__(self, input_chars: int = 0):
        self.input = input_chars
        self.spent = 0
        self.work = 0

    @property
    def limit(self) -> int:
        return expansion_budget(self.input)

    def grow(self, chars: int) -> None:
        self.input += chars

    def spend(self, chars: int, *, inner: bool = False) -> bool:
        """Take `chars` characters copied into a skill being run (`inner`: into the
        expansion of a skill embedded in it, which counts as work only), if they fit."""
        limit = self.limit
        if self.work + chars > WORK_FACTOR * limit or (
                not inner and self.spent + chars > limit):
            return False
        self.work += chars
        if not inner:
            self.spent += chars
        return True


def over_budget_message(name: str, skill: str | None, limit: int) -> str:
    """The `value-budget` error's message: which value, where, and the budget it met."""
    where = f" in `{skill}`" if skill else ""
    return (f"`{{{{{excerpt_name(name)}}}}}`{where} would take the document past its budget "
            f"({limit:,} characters added by references and values: "
            f"{EXPANSION_FLOOR:,} plus {EXPANSION_FACTOR} times the skills' text and the "
            f"values'); left empty here")


def excerpt_name(name: str) -> str:
    """`name` as a message quotes it: whole when short, else its start and a `…`."""
    return name if len(name) <= 80 else name[:79] + "…"


def limit_problems(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """`diagnostics` as the problem list shows them, in the same order: identical ones
    (same severity, code, message, skill and name) once, saying how many times and from
    which line; at most `LISTED_PER_KIND` of each code, then one `output-budget`
    warning counting the rest; each message at most `MESSAGE_CHARS` long."""
    found = list(diagnostics)
    repeats = Counter((d.severity, d.code, d.message, d.skill, d.name) for d in found)
    seen: set[tuple[object, ...]] = set()
    listed: Counter[str] = Counter()
    left_out: Counter[str] = Counter()
    out: list[Diagnostic] = []
    for d in found:
        key = (d.severity, d.code, d.message, d.skill, d.name)
        if key in seen:
            continue
        seen.add(key)
        if listed[d.code] >= LISTED_PER_KIND:
            left_out[d.code] += 1
            continue
        listed[d.code] += 1
        message = d.message
        if len(message) > MESSAGE_CHARS:
            message = message[:MESSAGE_CHARS - 1] + "…"
        if repeats[key] > 1:
            at = f", first at line {d.line}" if d.line else ""
            message += f" ({repeats[key]:,} times{at})"
        if message is not d.message:
            d = Diagnostic(d.severity, d.code, message, d.skill, d.line, d.name, d.suggestions)
        out.append(d)
    for code, count in left_out.items():
        out.append(Diagnostic("warning", "output-budget",
                              f"{count:,} more different `{code}` problems are not listed "
                              f"(the first {LISTED_PER_KIND} are)"))
    return out

