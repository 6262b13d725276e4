"""What a skill's history shows of two revisions besides their text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webapp import models


@dataclass(frozen=True, slots=True)
class FieldChange:
    """A metadata field that differs between two revisions."""

    name: str
    old: str
    new: str



def field_changes(old: models.SkillRevision, new: models.SkillRevision) -> list[FieldChange]:
    """The fields besides the text that differ between two revisions."""
    return [FieldChange(name, _shown(getattr(old, name)), _shown(getattr(new, name)))
            for name in ("d_tag", "name", "layer", "triggers", "enabled")
            if getattr(old, name) != getattr(new, name)]


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(value) or "(none)"
    return str(value) if value != "" else "(empty)"
