"""How much `json_to_markdown` costs next to a bare `json.loads` of the same text.

The target: at most 3x `json.loads` on 1 MB and 10 MB documents, parse included, on
arrays of synthetic Nostr events (`workspaces.nostr_events_json`). Run
`python -m benchmarks.json_markdown` for a table of the raw times.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from webapp.pipeline import json_to_markdown

from .workspaces import nostr_events_json

Row = tuple[str, str, str]


def best_ms(run: Callable[[], Any], repeat: int) -> float:
    """The best of `repeat` timed calls, in ms, each after a garbage collection."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def bench_json_markdown(
    sizes: tuple[int, ...] = (1_000_000, 10_000_000),
    max_items: int | None = 8,
    repeat: int = 3,
) -> list[dict[str, Any]]:
    """Time `json.loads` and `json_to_markdown` (best of `repeat`) on each document size.

    Returns one row per size: `size_bytes`, `max_items`, `json_loads_ms`,
    `json_to_markdown_ms` and `ratio` (markdown time / loads time).
    """
    rows = []
    for size in sizes:
        text = nostr_events_json(size)
        loads_ms = best_ms(partial(json.loads, text), repeat)
        markdown_ms = best_ms(partial(json_to_markdown, text, max_items), repeat)
        rows.append({
            "size_bytes": len(text),
            "max_items": max_items,
            "json_loads_ms": round(loads_ms, 2),
            "json_to_markdown_ms": round(markdown_ms, 2),
            "ratio": round(markdown_ms / loads_ms, 2),
        })
    return rows


def json_rows(quick: bool = False) -> list[Row]:
    """(figure, measured, target) rows: the ratio per size, truncated and with every item."""
    sizes = (200_000,) if quick else (1_000_000, 10_000_000)
    rows = []
    for max_items, label in ((8, "max 8 items"), (None, "every item")):
        for row in bench_json_markdown(sizes, max_items=max_items):
            if quick:
                size = f"{row['size_bytes'] / 1e3:.0f} KB"
            else:
                size = f"{row['size_bytes'] / 1e6:.0f} MB"
            rows.append((f"json_to_markdown / json.loads, {size}, {label}",
                         f"{row['ratio']:.2f}x", "<= 3x"))
    return rows


def main() -> None:
    """Print the raw times of both sizes, truncated and with every item."""
    print(f"{'size_bytes':>12} {'max_items':>9} {'json.loads ms':>14} {'to_markdown ms':>15} "
          f"{'ratio':>6}")
    for max_items in (8, None):
        for row in bench_json_markdown(max_items=max_items):
            print(f"{row['size_bytes']:>12} {row['max_items']!s:>9} {row['json_loads_ms']:>14} "
                  f"{row['json_to_markdown_ms']:>15} {row['ratio']:>6}")


if __name__ == "__main__":
    main()
