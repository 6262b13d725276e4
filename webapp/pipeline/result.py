"""What an assembly returns: the document, its messages, diagnostics, provenance and trace."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

#: The severities of a diagnostic, worst first: the one order every list, count and
#: summary of problems follows (the preview, the log entry, the CLI).
SEVERITIES = ("error", "warning", "info")


def severity_rank(severity: str) -> int:
    """Where `severity` sorts among `SEVERITIES`, worst first; an unknown one last."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


def count_severities(diagnostics: Iterable[Diagnostic]) -> dict[str, int]:
    """How many of `diagnostics` have each severity, every one of `SEVERITIES` a key."""
    counts = dict.fromkeys(SEVERITIES, 0)
    for diagnostic in diagnostics:
        counts[diagnostic.severity] += 1
    return counts


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem or note found while assembling: severity, stable code, message and place.

    `skill` is the `d_tag` of the skill the problem is in (None for workspace-level
    problems) and `line` the 1-based line in that skill's content (None when unknown).
    `name` is the `{{name}}` of that line the problem is about, when it is about one, and
    `suggestions` the known names closest to an unknown one, best first (what the editor
    offers as quick fixes). Neither is part of the log entry (`to_dict`).
    """

    severity: str
    code: str
    message: str
    skill: str | None = None
    line: int | None = None
    name: str | None = None
    suggestions: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"severity": self.severity, "code": self.code, "message": self.message,
                "skill": self.skill, "line": self.line}

    def __str__(self) -> str:
        where = f"{self.skill}:{self.line}" if self.line else (self.skill or "workspace")
        return f"{self.severity}: {where}: {self.message} [{self.code}]"


class Origin(NamedTuple):
    """Where one line of the document came from.

    `kind` is one of: `skill` (a line an author wrote: `skill` and `line` say which),
    `variable` / `tool` (text a variable or tool put there: `name` says which, `skill`
    and `line` the place of the `{{name}}`), `title`, `separator`, `role` (a `role:` line
    of the document), `message` (the incoming message used as the user-fallback) and
    `history` (an expanded DM history entry); the pipeline explainer (`explain`) also
    labels the lines of a request body `request` and the log entry's header `log`. A
    named tuple: the pipeline makes one per line on every keystroke, and tuples are the
    cheapest immutable records Python has.
    """

    kind: str
    skill: str | None = None
    line: int | None = None
    name: str | None = None

    @property
    def label(self) -> str:
        """A short human label: `chat:3`, `variable:agent_npub`, `title`, ..."""
        if self.kind == "skill":
            return f"{self.skill}:{self.line}"
        if self.kind in ("variable", "tool"):
            return f"{self.kind}:{self.name}"
        return self.kind

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.kind, "skill": self.skill, "line": self.line,
                "name": self.name, "label": self.label}


class Stage(NamedTuple):
    """One step of a skill's stage trace: its name, the text after it and the origin of
    each line of that text (a role's marker line is `Origin("role")`)."""

    name: str
    text: str
    origins: Sequence[Origin] = ()


class SkillTrace:
    """How one skill's text changed through the stages of assembly.

    `stages` may be made on first use (`build`): a memoised skill's trace is six copies
    of its text, so it is not kept with the skill's result but run again when asked for
    (the Pipeline tab shows one skill's trace), by a copy of the trace (`fresh`).
    """

    __slots__ = ("_build", "_stages", "d_tag", "last_lines")

    def __init__(self, d_tag: str, stages: tuple[Stage, ...] | None = None,
                 build: Callable[[], tuple[Stage, ...]] | None = None,
                 last_lines: tuple[int, int] = (0, 0)) -> None:
        assert (stages is None) != (build is None)
        self.d_tag = d_tag
        self._stages = stages
        self._build = build
        #: The lines of the last stage's text without making it: its blocks' lines (an
        #: empty block's one) and the role marker lines before them.
        self.last_lines = last_lines

    @property
    def stages(self) -> tuple[Stage, ...]:
        if self._stages is None:
            self._stages = self._build()  # type: ignore[misc]
            self._build = None
        return self._stages

    def fresh(self) -> SkillTrace:
        """This trace, or, when its stages are still to be made, a copy that will make
        (and keep) its own: a memo's entry stays as small as it was."""
        return self if self._build is None else SkillTrace(self.d_tag, build=self._build,
                                                           last_lines=self.last_lines)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SkillTrace):
            return NotImplemented
        return (self.d_tag, self.stages) == (other.d_tag, other.stages)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SkillTrace({self.d_tag!r}, {self.stages!r})"


@dataclass(slots=True)
class Context:
    """The result of `assemble`: everything the agent is given, and how it was made."""

    document: str
    messages: list[dict[str, str]]
    diagnostics: list[Diagnostic]
    #: The origin of each line of the document, as the pipeline keeps them (an author's
    #: lines as runs: `origins.Origins`); `provenance` is the same, one object per line.
    origins: Sequence[Origin]
    log_entry: str
    scenario: str | None = None
    trigger: str = ""
    #: The selected skills' finished blocks, in order, before they became messages: each
    #: a `blocks.Piece` (role, skill, trimmed text, its origins).
    pieces: Sequence[Any] = ()
    #: The lines starting with `#` that the skills' own text gave, in document order (each
    #: skill's found once, with its memoised result: `stages.author_headings`).
    author_headings: Sequence[str] = ()
    _trace_builder: Callable[[], list[SkillTrace]] | None = field(default=None, repr=False)
    _trace: list[SkillTrace] | None = field(default=None, repr=False)
    _provenance: list[Origin] | None = field(default=None, repr=False)

    @property
    def provenance(self) -> list[Origin]:
        """The origin of each line of the document, made on first use: an assembly whose
        document no one reads line by line never makes them."""
        if self._provenance is None:
            self._provenance = list(self.origins)
        return self._provenance

    @property
    def trace(self) -> list[SkillTrace]:
        """The per-skill stage trace, computed on first use."""
        if self._trace is None:
            self._trace = self._trace_builder() if self._trace_builder else []
        return self._trace

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)

    def counts(self) -> dict[str, int]:
        """The number of diagnostics of each severity."""
        return count_severities(self.diagnostics)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape the CLI prints: document, messages, diagnostics, provenance."""
        return {
            "document": self.document,
            "messages": self.messages,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "provenance": [o.to_dict() for o in self.provenance],
        }
