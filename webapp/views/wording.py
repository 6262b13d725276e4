"""How a count reads in the app's sentences."""

from __future__ import annotations


def counted(number: int, noun: str) -> str:
    """`1 scenario`, `2 scenarios`: a count and its noun, plural when it is not one."""
    return f"{number} {noun}{'' if number == 1 else 's'}"
