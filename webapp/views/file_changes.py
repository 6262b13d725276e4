"""What changes between two sets of a skill's files: each file added, removed or changed
(its bytes or whether it is executable), with a text diff for a text file that changed.

One answer for every page that shows a skill's files changing: an import's preview and the
comparison of two snapshots (or a snapshot and the draft).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from webapp.pipeline import SkillFile
from webapp.textdiff.lines import Diff, diff_lines

#: The most lines of a file's diff that are made (the rest are counted).
FILE_DIFF_LINES = 100


@dataclass(frozen=True, slots=True)
class FileChange:
    """A file `added`, `removed` or `changed` (`change`), with its size after (or before),
    and for a text file that changed (with `diffs`), its diff."""

    path: str
    change: str
    size: int
    diff: Diff | None = None


def file_changes(before: Iterable[SkillFile], after: Iterable[SkillFile], *,
                 diffs: bool = False) -> tuple[FileChange, ...]:
    """The files `after` adds, removes or changes from `before`, in path order; with
    `diffs`, a changed file that is text on both sides comes with its diff."""
    old = {f.path: f for f in before}
    new = {f.path: f for f in after}
    changes = []
    for path in sorted(old.keys() | new.keys()):
        if path not in old:
            changes.append(FileChange(path, "added", new[path].size))
        elif path not in new:
            changes.append(FileChange(path, "removed", old[path].size))
        elif (old[path].sha256, old[path].executable) != (new[path].sha256,
                                                          new[path].executable):
            a, b = old[path].text, new[path].text
            diff = (diff_lines(a, b, limit=FILE_DIFF_LINES)
                    if diffs and a is not None and b is not None and a != b else None)
            changes.append(FileChange(path, "changed", new[path].size, diff))
    return tuple(changes)
