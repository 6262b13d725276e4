"""Helpers for the pipeline's tests: building its dataclasses and reading them back."""

from __future__ import annotations

from collections.abc import Sequence

from webapp.pipeline.blocks import Block, Line
from webapp.pipeline.usage import WhereUsed


def block_of_lines(role: str | None, skill: str | None, lines: Sequence[Line]) -> Block:
    """A `Block` of `lines` (text and origin pairs), as a stage receives it."""
    if not lines:
        return Block(role, skill, "", ())
    texts, origins = zip(*lines, strict=True)
    return Block(role, skill, "\n".join(texts), origins)


def resolves_to(used: WhereUsed) -> str:
    """What `{{name}}` gives: the kind of the first of `used`'s meanings, or `unknown`."""
    return used.meanings[0].kind if used.meanings else "unknown"
