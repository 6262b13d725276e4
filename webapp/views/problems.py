"""The problems a preview lists, counted once: the Problems tab's badge, its heading and
its list, the summary line's errors and warnings, and the skill list's badge for the
edited skill all read the counts made here from the one list the tab shows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from webapp.pipeline import SEVERITIES, Diagnostic

from .wording import counted


@dataclass(frozen=True, slots=True)
class ProblemCounts:
    """Problems by severity: a list's, or one skill's own (the diagnostics in its lines)."""

    error: int = 0
    warning: int = 0
    info: int = 0

    @classmethod
    def of(cls, diagnostics: Iterable[Diagnostic], d_tag: str | None = None) -> ProblemCounts:
        """The counts of `diagnostics`, or of those in skill `d_tag`'s lines."""
        found = Counter(d.severity for d in diagnostics if d_tag is None or d.skill == d_tag)
        return cls(found["error"], found["warning"], found["info"])

    @property
    def total(self) -> int:
        return self.error + self.warning + self.info

    @property
    def severity(self) -> str | None:
        """The worst severity among them (None when there are none)."""
        return next((name for name in SEVERITIES if getattr(self, name)), None)

    @property
    def text(self) -> str:
        """`1 error, 2 warnings`; empty when there are none."""
        return ", ".join(f"{n} {name}{'s' if n != 1 and name != 'info' else ''}"
                         for name in SEVERITIES if (n := getattr(self, name)))


@dataclass(frozen=True, slots=True)
class ProblemsTab:
    """The Problems tab: the problems it lists, and their counts, all and (in the editor)
    the edited skill's own."""

    problems: tuple[Diagnostic, ...]
    counts: ProblemCounts
    #: The edited skill's own problems (what its badge in the skill list counts); None on
    #: the agent preview, which edits no skill.
    own: ProblemCounts | None = None
    skill: str | None = None

    @classmethod
    def of(cls, problems: Iterable[Diagnostic], skill: str | None = None) -> ProblemsTab:
        listed = tuple(problems)
        return cls(listed, ProblemCounts.of(listed),
                   ProblemCounts.of(listed, skill) if skill is not None else None, skill)

    @property
    def total(self) -> int:
        """How many problems the tab lists: its badge's number."""
        return len(self.problems)

    @property
    def heading(self) -> str:
        """`3 problems: 1 error, 2 warnings`, or `No problems`."""
        if not self.total:
            return "No problems"
        return f"{counted(self.total, 'problem')}: {self.counts.text}"
