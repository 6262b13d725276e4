"""How much `json_to_markdown` costs next to a bare `json.loads` of the same text.

The target: at most 3x `json.loads` on 1 MB and 10 MB documents, parse included.
The documents are arrays of synthetic Nostr events (id, pubkey, created_at, kind,
tags as arrays of arrays of strings, content, sig), built from a fixed seed so every
run measures the same bytes. Run `python -m webapp.bench_json` for a table.
"""

from __future__ import annotations

import gc
import json
import random
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from webapp.pipeline.json_markdown import json_to_markdown

WORDS = ("nostr", "relay", "zap", "note", "key", "agent", "skill", "context", "deploy", "sats",
         "lightning", "morning", "build", "release", "test", "shipped", "working", "on", "the")


def nostr_events_json(size_bytes: int, seed: int = 2026) -> str:
    """A JSON array of synthetic Nostr events at least `size_bytes` characters long."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 2
    while total < size_bytes:
        text = json.dumps(_event(rng), ensure_ascii=False, separators=(",", ":"))
        parts.append(text)
        total += len(text) + 1
    return "[" + ",".join(parts) + "]"


def _event(rng: random.Random) -> dict[str, Any]:
    def hex_text(chars: int) -> str:
        return f"{rng.getrandbits(chars * 4):0{chars}x}"

    tags = [["e", hex_text(64), "wss://relay.example.com", "reply"] for _ in range(rng.randrange(3))]
    tags += [["p", hex_text(64)] for _ in range(rng.randrange(4))]
    tags += [["t", rng.choice(WORDS)] for _ in range(rng.randrange(2))]
    lines = [" ".join(rng.choices(WORDS, k=rng.randrange(3, 16))) for _ in range(rng.randrange(1, 4))]
    return {
        "id": hex_text(64),
        "pubkey": hex_text(64),
        "created_at": 1774263529 + rng.randrange(10**6),
        "kind": rng.choice((1, 1, 1, 7, 30023)),
        "tags": tags,
        "content": "\n".join(lines),
        "sig": hex_text(128),
    }


def _best_ms(run: Callable[[], Any], repeat: int) -> float:
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
        loads_ms = _best_ms(partial(json.loads, text), repeat)
        markdown_ms = _best_ms(partial(json_to_markdown, text, max_items), repeat)
        rows.append({
            "size_bytes": len(text),
            "max_items": max_items,
            "json_loads_ms": round(loads_ms, 2),
            "json_to_markdown_ms": round(markdown_ms, 2),
            "ratio": round(markdown_ms / loads_ms, 2),
        })
    return rows


def main() -> None:
    print(f"{'size_bytes':>12} {'max_items':>9} {'json.loads ms':>14} {'to_markdown ms':>15} {'ratio':>6}")
    for max_items in (8, None):
        for row in bench_json_markdown(max_items=max_items):
            print(f"{row['size_bytes']:>12} {row['max_items']!s:>9} {row['json_loads_ms']:>14} "
                  f"{row['json_to_markdown_ms']:>15} {row['ratio']:>6}")


if __name__ == "__main__":
    main()
