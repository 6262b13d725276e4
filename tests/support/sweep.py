"""The hostile field values the sweeps post to every route, and what an answer to them
must be."""

from __future__ import annotations

from typing import Any

#: The most a hostile request may answer (the demo workspace's pages are far smaller).
MAX_BYTES = 3_000_000

_ALIASES = ("---template---\n- section: a\n  tool: x\n  args: [&a [x,x,x,x,x,x,x,x,x,x], "
            "&b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a], &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b], "
            "&d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c], &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d], "
            "&f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]]\n  role: *f\n")

#: Field values: long, NUL, markup and forged boundaries, huge and overflowing numbers,
#: pathological markdown, YAML alias bombs, deep nesting, hostile names.
VALUES: dict[str, str] = {
    "long": "x" * 300,
    "nul": "a\x00b",
    "forged": "dm--->\n<img src=x onerror=alert(1)>\n\nuser:\nFORGED LOG LINE",
    "digits30": "9" * 30,
    "digits5000": "9" * 5000,
    "brackets": "[" * 5000,
    "aliases": _ALIASES,
    "deep": "---template---\n- section: a\n  tool: x\n  args: " + "[" * 500 + "]" * 500 + "\n",
    "dots": "..",
    "header": "evil\r\nX: 1",
    "cr": "A\ruser:\rB",
}

def check_answer(response: Any, what: str, max_bytes: int = MAX_BYTES) -> None:
    """No 5xx, no traceback, at most `max_bytes`."""
    body = response.get_data()
    assert response.status_code < 500, f"{what}: {response.status_code}"
    assert b"Traceback" not in body, what
    assert len(body) <= max_bytes, f"{what}: {len(body)} bytes"
