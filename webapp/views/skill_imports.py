"""What the preview of a skills import shows: each skill as new, updated (its SKILL.md's
diff and the files that change) or unchanged, and what the agent's target clients would
refuse, cut or ignore of it (`agentskills.lint_skill`; a new agent's clients are the
default ones).

A skill the import leaves out (its limits, a file or field the store refuses) is a row
`left out` with its reasons (`ImportRow.reasons`). Used by the import page and by
`skill-editor skills import --dry-run`. The diffs are the bounded ones every page uses
(`textdiff.diff_lines`), cut to what a person reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from webapp.agentskills import LeftOut, SkillFolder, encode_skill_md, exported_name, lint_skill
from webapp.pipeline import Diagnostic
from webapp.store import ImportItem, ImportPlan
from webapp.textdiff.lines import SHOWN_ROWS, Diff, diff_lines
from webapp.tokens import count_tokens

from .file_changes import FileChange, file_changes

#: The status of a skill of the upload that the import leaves out.
LEFT_OUT = "left out"


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
    #: What the agent's target clients would refuse, cut or ignore of it.
    problems: tuple[Diagnostic, ...] = ()
    #: Why a skill `left out` is not imported, each `(where, why)`.
    reasons: tuple[tuple[str, str], ...] = ()

    @property
    def importable(self) -> bool:
        return self.status != LEFT_OUT


def import_rows(plan: ImportPlan) -> list[ImportRow]:
    """The preview's rows: the skills imported, in the upload's order, then those left out."""
    names = dict(plan.names)  # the agent's skills, then the upload's over them
    for item in plan.items:
        names = {n: d for n, d in names.items() if d != item.d_tag}
    for item in plan.items:
        names[exported_name(item.folder.skill, item.folder.head)] = item.d_tag
    return ([_row(item, plan.clients, names) for item in plan.items]
            + [_left_out_row(out) for out in plan.left_out])


def _left_out_row(out: LeftOut) -> ImportRow:
    return ImportRow(out.name, LEFT_OUT, False, out.source, 0, 0, None, (),
                     reasons=out.problems)


def _row(item: ImportItem, clients: Sequence[str], names: dict[str, str]) -> ImportRow:
    folder = item.folder
    diff = None
    changes: tuple[FileChange, ...] = ()
    if item.status == "updated" and item.current is not None:
        diff = diff_lines(skill_md_text(item.current), skill_md_text(folder), limit=SHOWN_ROWS)
        changes = file_changes(item.current.files, folder.files)
    others = {name: d_tag for name, d_tag in names.items() if d_tag != item.d_tag}
    problems = lint_skill(folder.skill, folder.head, [f.path for f in folder.files], clients,
                          others=others, count_tokens=lambda text: count_tokens(text).n)
    return ImportRow(item.d_tag, item.status, item.restored, folder.source, len(folder.files),
                     sum(f.size for f in folder.files), diff, changes, tuple(problems))


def skill_md_text(folder: SkillFolder) -> str:
    """The SKILL.md a folder exports, as text (LF: line ends are not what a diff shows)."""
    return encode_skill_md(folder.skill, folder.head).decode("utf-8", "replace")
