"""Published snapshots parsed once: a snapshot never changes, so the parse of its bundle is
kept by its id and digest and every page that shows it reads that."""

from __future__ import annotations

from typing import Any, NamedTuple

from webapp.bounds.lru import LRU
from webapp.pipeline import Workspace, load_bundle, parse_json
from webapp.schema import models


class ParsedSnapshot(NamedTuple):
    """A snapshot's bundle parsed (to be read, never changed), and its `Workspace`."""

    chars: int
    bundle: dict[str, Any]
    workspace: Workspace


#: Snapshots parsed, by id and digest: a published snapshot never changes, so each page
#: that shows it reads the parse kept (a 20 MB bundle took seconds to parse, most of them
#: checking its depth, on every view of its snapshot page or a comparison with it).
_parsed: LRU[tuple[int, str], ParsedSnapshot] = LRU(
    "parsed snapshots", 32_000_000, weight=lambda key, parsed: parsed.chars)


def parsed_snapshot(snapshot: models.PublishedSnapshot) -> ParsedSnapshot:
    """Snapshot `snapshot`'s bundle parsed and its `Workspace`, parsed once a digest."""
    key = (snapshot.id, snapshot.digest)
    parsed = _parsed.get(key)
    if parsed is None:
        text = snapshot.bundle
        bundle = parse_json(text)
        parsed = _parsed.put(key, ParsedSnapshot(len(text), bundle, load_bundle(bundle)))
    return parsed
