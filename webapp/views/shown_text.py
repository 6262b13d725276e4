"""How much of a saved text a page renders and highlights: a context-log entry or a skill
version of megabytes is shown up to `SHOWN_CHARS`, the rest counted; the whole text stays
one click away (the copy button, the entry's download)."""

from __future__ import annotations

#: The most characters of one saved text a page renders, and highlights, once each.
SHOWN_CHARS = 200_000
#: How far past `SHOWN_CHARS` the cut looks for the end of a line.
LINE_END_REACH = 2_000


def shown_part(text: str, chars: int = SHOWN_CHARS) -> tuple[str, int]:
    """`text` to the end of the line where it passes `chars` (or cut at `chars` when that
    line runs on), and how many characters are left out."""
    if len(text) <= chars:
        return text, 0
    end = text.find("\n", chars, chars + LINE_END_REACH)
    shown = text[:end + 1] if end != -1 else text[:chars]
    return shown, len(text) - len(shown)
