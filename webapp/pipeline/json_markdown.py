"""Rule 1: one generic converter from any JSON value to readable markdown.

Objects become bullet lists with bold keys, short arrays of primitives stay inline,
long arrays are truncated with a note, and text that is not JSON passes through
unchanged. The golden files in `tests/pipeline/fixtures/json_markdown/` show every
case side by side.

The converter runs on every tool result of a preview, some of them megabytes of
Nostr events, so the renderer is written for speed: one list of lines shared by the
whole walk, exact-type checks before anything general, no regular expression inside
the walk. `python -m benchmarks.json_markdown` measures it against `json.loads`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .untrusted import JsonNumber

__all__ = ["json_to_markdown"]

#: What JSON text can start with after its leading whitespace; anything else is not
#: JSON, and such text is returned without paying for a parse.
_JSON_STARTS = frozenset('{["-0123456789tfn')
_LEADING_SPACE = re.compile(r"[ \t\n\r]*").match  # JSON's own whitespace
#: Characters `str.splitlines` breaks on; only looked for in non-printable strings,
#: since `str.isprintable()` is False for every one of them.
_LINE_BREAK = re.compile("[\n\v\f\r\x1c\x1d\x1e\x85\u2028\u2029]").search
#: Above this many characters an array of primitives is a bullet list, not inline.
INLINE_WIDTH = 80
_CONTAINERS = (dict, list)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# Numbers are kept as the text they were written as (`1.50` stays `1.50`, an integer
# of any length stays exact and never meets Python's 4300-digit int-to-str limit);
# since a number and a string then render the same way, the walk needs no number type.
_DECODER = json.JSONDecoder(parse_int=str, parse_float=str, parse_constant=_reject_constant)


def json_to_markdown(text_or_value: Any, max_items: int | None = 8) -> str:
    """Render JSON text, or an already parsed value, as markdown (rule 1).

    Args:
        text_or_value: a `str` is JSON *text*: text that is not JSON comes back
            unchanged and a top-level JSON string comes back as its text. Any other
            value (dict, list, int, float, bool, None) is rendered directly.
        max_items: arrays longer than this show their first `max_items` items and a
            `*(... and K more items)*` note; 0 or None means no limit.

    Returns:
        The markdown. An object or array renders with no trailing newline and no line
        ending in whitespace; text comes back as it was. Never raises.
    """
    limit = _item_limit(max_items)
    if isinstance(text_or_value, str):
        text = text_or_value
        start = _LEADING_SPACE(text).end()
        if text[start:start + 1] not in _JSON_STARTS:
            return text
        try:
            value = _DECODER.decode(text)
        except (ValueError, RecursionError):  # not JSON, or nested too deep to parse
            return text
    else:
        text = None
        value = text_or_value
    try:
        return _render(value, limit)
    except RecursionError:  # nested deeper than Python's stack (or a cyclic value)
        return text if text is not None else _safe_text(value)


def _item_limit(max_items: Any) -> int:
    """`max_items` as an int where 0 means no limit; anything unusable means no limit."""
    try:
        limit = int(max_items or 0)
    except (TypeError, ValueError, OverflowError):
        return 0
    return max(limit, 0)


def _render(value: Any, limit: int) -> str:
    tp = type(value)
    if tp is not str and tp is not dict and tp is not list:
        value = _plain(value)
        tp = type(value)
    if tp is str:
        return value
    lines: list[str] = []
    if tp is dict:
        _object(value, "", lines, limit)
    else:
        _array(value, "", lines, limit)
    return "\n".join(lines)


# `_object` and `_array` check exact types, most common first: parsed JSON text holds
# only str (numbers included), dict, list, bool and None. Anything else, from a value
# given directly, is first made one of those by `_plain`.


def _object(obj: dict, pad: str, out: list[str], limit: int) -> None:
    """Append one `- **key**: value` bullet per key, nested values indented two spaces."""
    append = out.append
    sub = pad + "  "
    for key, value in obj.items():
        if type(key) is not str or not key.isprintable():
            key = _key_text(key)
        tp = type(value)
        if tp is str:
            if value.isprintable():  # no line break, and no trailing whitespace but " "
                append(f"{pad}- **{key}**: {value}".rstrip())
            else:
                _text(f"{pad}- **{key}**: ", value, sub, out)
        elif tp is list:
            # An array whose first item is an array or object is never inline.
            inline = None if value and type(value[0]) in _CONTAINERS else _inline(value, limit)
            if inline is None:
                append(f"{pad}- **{key}**:")
                _array(value, sub, out, limit)
            else:
                append(f"{pad}- **{key}**: {inline}".rstrip())
        elif tp is dict:
            append(f"{pad}- **{key}**:")
            if value:
                _object(value, sub, out, limit)
        elif value is None:
            append(f"{pad}- **{key}**:")
        else:
            _object({key: _plain(value)}, pad, out, limit)


def _array(items: list, pad: str, out: list[str], limit: int) -> None:
    """Append one bullet per item; an object or array item is rendered two spaces
    deeper and its first line pulled back onto the item's bullet."""
    append = out.append
    sub = pad + "  "
    bullet = pad + "- "
    bullet_bullet = bullet + "- "
    sub_bullet = sub + "- "
    count = len(items)
    if limit and count > limit:
        items = items[:limit]
    for item in items:
        tp = type(item)
        if tp is str:
            if item.isprintable():
                append((bullet + item).rstrip())
            else:
                _text(bullet, item, sub, out)
        elif tp is dict:
            if item:
                first = len(out)
                _object(item, sub, out, limit)
                out[first] = out[first][2:]  # `  - **key**: …` -> `- **key**: …`
            else:
                append(pad + "-")
        elif tp is list:
            if not item:
                append(pad + "-")
                continue
            first = len(out)
            if not limit or len(item) <= limit:
                # Most inner arrays (Nostr tags) are a few one-line strings: write
                # them here, without the recursive call below.
                head = bullet_bullet
                for inner in item:
                    if type(inner) is not str or not inner.isprintable():
                        del out[first:]
                        break
                    append((head + inner).rstrip())
                    head = sub_bullet
                else:
                    continue
            _array(item, sub, out, limit)
            out[first] = bullet + out[first][len(sub):]  # `  - 1` -> `- - 1`
        elif item is None:
            append(pad + "-")
        else:
            _array([_plain(item)], pad, out, limit)
    if limit and count > limit:
        append(f"{bullet}*(... and {count - limit} more items)*")


def _inline(items: list, limit: int) -> str | None:
    """`a, b, c` for an array of one-line primitives that fits in INLINE_WIDTH
    characters (counting the shown items only), else None."""
    if not items:
        return ""
    count = len(items)
    shown = items[:limit] if limit and count > limit else items
    texts = []
    width = -2
    for item in shown:
        tp = type(item)
        if tp is not str and tp is not dict and tp is not list:
            item = _plain(item)
            tp = type(item)
        if tp is not str or (not item.isprintable() and _LINE_BREAK(item)):
            return None
        width += len(item) + 2
        if width > INLINE_WIDTH:
            return None
        texts.append(item)
    if len(shown) < count:
        texts.append(f"*(... and {count - len(shown)} more items)*")
    return ", ".join(texts)


def _text(head: str, text: str, sub: str, out: list[str]) -> None:
    """Append `head` + the first line of `text`, its other lines indented by `sub`
    (its trailing blank lines dropped)."""
    lines = text.rstrip().splitlines() or [""]
    out.append((head + lines[0]).rstrip())
    out.extend((sub + line).rstrip() for line in lines[1:])


def _key_text(key: Any) -> str:
    """A key as one line of text: a key's line breaks become spaces (as markdown
    would render them), so the bullet stays on its line."""
    text = "null" if key is None else _plain(key)
    if type(text) is not str:
        text = _safe_text(key)
    if not text.isprintable() and _LINE_BREAK(text):
        text = " ".join(text.splitlines())
    return text


def _plain(value: Any) -> Any:
    """Anything that is not exactly a str, dict or list, as one of them: scalars as
    their JSON text (None as ""), mappings as a dict, tuples as a list."""
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return _int_text(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, JsonNumber):
        return value.text
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (list, tuple)):
        return list(value)
    return _safe_text(value, str)


def _int_text(number: int) -> str:
    """An int's decimal digits, however many (plain `str` refuses above 4300)."""
    try:
        return str(int(number))
    except ValueError:
        sign = "-" if number < 0 else ""
        number = abs(int(number))
        chunk = 10**500  # below the smallest limit Python lets a program set (640)
        parts = []
        while number:
            number, rest = divmod(number, chunk)
            parts.append(rest)
        head = str(parts.pop())
        return sign + head + "".join(f"{part:0500d}" for part in reversed(parts))


def _safe_text(value: Any, convert: Any = repr) -> str:
    """`convert(value)`, or `<type name>` for a foreign object whose `__str__` or
    `__repr__` fails."""
    try:
        return convert(value)
    except Exception:  # noqa: BLE001 - a foreign object's __str__ may raise anything
        return f"<{type(value).__name__}>"
