"""A context test's regular expression: RE2 (`google-re2`), linear in the text whatever the
pattern, with its cost bounded twice: a pattern whose program is too large is refused when
the test is saved (`pattern_problem`), and a search whose worst case is large is the
caller's to run under a deadline (`Search`; `context_tests.bounded_search`). `^` and `$`
match at line ends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import re2

#: Put before each pattern: `^` and `$` match at line ends.
LINES = "(?m)"
#: RE2's memory for one compiled pattern: a pattern past it is refused, never slow.
PATTERN_MEMORY = 1 << 20
#: The most instructions a test's compiled pattern may have. RE2 is linear in the text,
#: but its work for each character grows with the program: a large counted repetition
#: (`.{0,999}`: 9,000 instructions) also outgrows its DFA's memory and takes the slow path,
#: seconds over a long line. The caller's `search` bounds the run itself.
PATTERN_PROGRAM = 1_000
#: Characters times instructions that a search may cost on the caller's thread; past
#: it, `run_tests`' `search` decides (the web and the CLI run it under a deadline).
DIRECT_SEARCH = 20_000_000

#: How a caller searches a text for a pattern: True or False, or None when the search
#: was stopped (its deadline passed): `search_pattern` is the unbounded one.
Search = Callable[[str, str], "bool | None"]


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` cannot be a test's regular expression (None: it can)."""
    try:
        size = _compile(pattern).programsize
    except re2.error as exc:
        why = exc.args[0] if exc.args else ""
        why = why.decode("utf-8", "replace") if isinstance(why, bytes) else str(why)
        return f"is not a pattern RE2 accepts: {why.replace(LINES, '', 1)[:200]}"
    if size > PATTERN_PROGRAM:
        return (f"is too costly a pattern: RE2 makes it {size:,} instructions, at most "
                f"{PATTERN_PROGRAM:,} (make its counted repetitions, such as {{0,999}}, "
                f"smaller)")
    return None


def search_cost(pattern: str, text: str) -> int:
    """What searching `text` for `pattern` may cost at worst: characters × instructions."""
    return len(text) * _compile(pattern).programsize


def search_pattern(pattern: str, text: str) -> bool | None:
    """Whether a line of `text` matches `pattern` (a pattern `pattern_problem` accepts), on
    this thread: what `run_tests` does when its caller gives no bounded search."""
    return _compile(pattern).search(text) is not None


def _compile(pattern: str) -> Any:
    options = re2.Options()
    options.max_mem = PATTERN_MEMORY
    options.log_errors = False
    return re2.compile(LINES + pattern, options)
