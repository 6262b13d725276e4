"""What a skill's history shows of two revisions besides their text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webapp.schema import models


@dataclass(frozen=True, slots=True)
class FieldChange:
    """A metadata field that differs between two revisions."""

    name: str
    old: str
    new: str



#: How many files a change of the file set names (it counts the rest).
FILES_SHOWN = 10


def field_changes(old: models.SkillRevision, new: models.SkillRevision) -> list[FieldChange]:
    """The fields besides the text that differ between two revisions, and the files of the
    skill's folder that one has and the other has not, or has with other bytes."""
    changes = [FieldChange(name, _shown(getattr(old, name)), _shown(getattr(new, name)))
               for name in ("d_tag", "name", "description", "layer", "triggers", "enabled")
               if getattr(old, name) != getattr(new, name)]
    before = {e["path"]: e["sha256"] for e in old.files}
    after = {e["path"]: e["sha256"] for e in new.files}
    if before != after:
        gone = sorted(p for p in before if before[p] != after.get(p))
        came = sorted(p for p in after if after[p] != before.get(p))
        changes.append(FieldChange("files", _paths(gone), _paths(came)))
    return changes


def _paths(paths: list[str]) -> str:
    shown = ", ".join(paths[:FILES_SHOWN])
    more = len(paths) - FILES_SHOWN
    return (f"{shown} and {more} more" if more > 0 else shown) or "(none)"


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(value) or "(none)"
    return str(value) if value != "" else "(empty)"
