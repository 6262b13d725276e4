"""How text a person typed is read, one owner for each rule: its line ends, and the words
that mean yes and no.

The pipeline needs the line-end rule itself (a skill's lines are what it numbers and
splits), and the store and the web layer call the pipeline, so these rules live here and
every path (the web forms, the JSON API, the bundle and SKILL.md imports, the CLI) calls
them; `tests/test_architecture.py` fails on a second definition.
"""

from __future__ import annotations

#: Words read as true and as false in a flag typed as text (a form's checkbox, a query
#: argument, a SKILL.md's `enabled`), in any case and with spaces around them. A blank
#: flag is false: it is what an empty form field or query argument sends.
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def lf_line_ends(text: str) -> str:
    """`text` with LF line ends: CRLF and a lone CR become LF.

    A browser sends a textarea's text with CRLF, and a file saved on another system may
    have either, so without this rule a lone CR could not survive an edit and a line
    could be numbered one way by the editor and another by the pipeline. The other
    characters `str.splitlines` breaks on (U+2028, U+0085, form feed ...) are text a
    person typed: they are kept as they are.
    """
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def flag_word(text: str) -> bool | None:
    """True or False for one of `TRUE_WORDS` or `FALSE_WORDS` (or a blank text), else None."""
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if not word or word in FALSE_WORDS:
        return False
    return None
