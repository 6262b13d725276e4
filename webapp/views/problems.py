"""The problems a preview lists, counted once: the Problems tab's badge, its heading and
its list, the summary line's errors and warnings, and the skill list's badge for the
edited skill all read the counts made here from the one list the tab shows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

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
    """The Problems tab: the problems it lists (the assembly's, and in the editor the
    SKILL.md's lint for the agent's clients), and their counts, all and (in the editor) the
    edited skill's own."""

    problems: tuple[Diagnostic, ...]
    counts: ProblemCounts
    #: The edited skill's own problems (what its badge in the skill list counts); None on
    #: the agent preview, which edits no skill.
    own: ProblemCounts | None = None
    skill: str | None = None
    #: The edited skill's SKILL.md for the agent's clients (`views.skill_lint`), listed apart.
    lint: tuple[Diagnostic, ...] = ()

    @classmethod
    def of(cls, problems: Iterable[Diagnostic], skill: str | None = None) -> ProblemsTab:
        listed = tuple(problems)
        return cls(listed, ProblemCounts.of(listed),
                   ProblemCounts.of(listed, skill) if skill is not None else None, skill)

    def with_lint(self, lint: Iterable[Diagnostic]) -> ProblemsTab:
        """The tab listing `lint` too, the SKILL.md's problems for the agent's clients."""
        return replace(self, lint=tuple(lint))

    @property
    def total(self) -> int:
        """How many problems the tab lists, the lint's included: its badge's number."""
        return len(self.problems) + len(self.lint)

    @property
    def listed(self) -> ProblemCounts:
        """Every problem the tab lists by severity, the lint's included: the badge's colour."""
        return ProblemCounts.of(self.problems + self.lint)

    @property
    def heading(self) -> str:
        """One sentence that counts what the list shows, as the badge does:
        `3 problems: 1 error, 2 warnings; in identity's own lines: none.`, and when the
        SKILL.md has problems too, how many are the context's and how many its own."""
        if not self.total:
            return "No problems."
        whole = f"{counted(self.total, 'problem')}: {self.listed.text}"
        own = (f"in {self.skill}'s own lines: {self.own.text or 'none'}"
               if self.own is not None else "")
        if not self.lint:
            return f"{whole}; {own}." if own else f"{whole}."
        skill_md = f"{self.skill}'s SKILL.md for the agent's clients"
        if not self.problems:
            return f"{whole}, all in {skill_md}."
        context = f"{len(self.problems)} in the context" + (f" ({own})" if own else "")
        return f"{whole}: {context}, {len(self.lint)} in {skill_md}."
