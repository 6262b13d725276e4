"""What the preview of a skills import shows: each skill as new, updated (its SKILL.md's
diff and the files that change) or unchanged, and what a client would refuse of it.

Used by the import page and by `skill-editor skills import --dry-run`. The diffs are the
bounded ones every page uses (`textdiff.diff_lines`), cut to what a person reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from webapp.agentskills import SkillFolder, encode_skill_md
from webapp.store import ImportItem, ImportPlan
from webapp.textdiff.lines import SHOWN_ROWS, Diff, diff_lines


@dataclass(frozen=True, slots=True)
class FileChange:
    """A file an import adds, removes or changes (`change`), with its size after (or before)."""

    path: str
    change: str
    size: int


@dataclass(frozen=True, slots=True)
class ImportRow:
    """One skill of an import's preview."""

    d_tag: str
    status: str
    restored: bool
    source: str
    files: int
    size: int
    diff: Diff | None
    file_changes: tuple[FileChange, ...]


def import_rows(plan: ImportPlan) -> list[ImportRow]:
    """The preview's rows, in the upload's order."""
    return [_row(item) for item in plan.items]


def _row(item: ImportItem) -> ImportRow:
    folder = item.folder
    diff = None
    changes: tuple[FileChange, ...] = ()
    if item.status == "updated" and item.current is not None:
        diff = diff_lines(skill_md_text(item.current), skill_md_text(folder), limit=SHOWN_ROWS)
        changes = file_changes(item.current, folder)
    return ImportRow(item.d_tag, item.status, item.restored, folder.source, len(folder.files),
                     sum(f.size for f in folder.files), diff, changes)


def skill_md_text(folder: SkillFolder) -> str:
    """The SKILL.md a folder exports, as text (LF: line ends are not what a diff shows)."""
    return encode_skill_md(folder.skill, folder.head).decode("utf-8", "replace")


def file_changes(before: SkillFolder, after: SkillFolder) -> tuple[FileChange, ...]:
    """The files `after` adds, removes or changes from `before`, in path order."""
    old = {f.path: f for f in before.files}
    new = {f.path: f for f in after.files}
    changes = []
    for path in sorted(old.keys() | new.keys()):
        if path not in old:
            changes.append(FileChange(path, "added", new[path].size))
        elif path not in new:
            changes.append(FileChange(path, "removed", old[path].size))
        elif (old[path].sha256, old[path].executable) != (new[path].sha256,
                                                          new[path].executable):
            changes.append(FileChange(path, "changed", new[path].size))
    return tuple(changes)
