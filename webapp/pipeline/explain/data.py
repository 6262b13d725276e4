"""What an explanation of the pipeline (`explain`) is made of: its steps and what they
show, and what the steps read (`Reading`: the workspace, the assembly and its inputs)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..origins import OriginsBuilder
from ..result import Context
from ..variables import Resolver
from ..workspace import Scenario, Skill, Workspace
from .skills import SkillStep, TracedText


@dataclass(frozen=True, slots=True)
class Selection:
    """A skill of the agent (or of its trash) and why the trigger selects it or not."""

    d_tag: str
    name: str
    position: int | None  # 1-based in the skill list (the adoption order); None: in the trash
    selected: bool
    reason: str


@dataclass(frozen=True, slots=True)
class MessageShape:
    """A message as the layout made it: its role, lines, and where its lines came from
    (`title`, skills' d_tags, `incoming message`), in order."""

    number: int
    role: str
    lines: int
    sources: tuple[str, ...]
    content: str


@dataclass(frozen=True, slots=True)
class Step:
    """One stage of the whole pipeline: `key` (its address), its name, one sentence on
    what it does, the anchor of its rule in docs/CONTEXT.md, what came in and went out,
    and in words what it did or why it changed nothing. A skill stage holds each
    selected skill's part (`skills`); the others the data they show."""

    key: str
    name: str
    does: str
    rule: str
    before: TracedText
    after: TracedText
    note: str
    skills: tuple[SkillStep, ...] = ()
    selection: tuple[Selection, ...] = ()
    messages: tuple[MessageShape, ...] = ()
    #: The words this step explains, first met here: (key, the words, what they mean).
    terms: tuple[tuple[str, str, str], ...] = ()

    @property
    def changed(self) -> bool:
        if self.skills:
            return any(skill.changed for skill in self.skills)
        return self.before.text != self.after.text or self.before.lines != self.after.lines


@dataclass(frozen=True, slots=True)
class Explanation:
    """Every step of one assembly, in order, and the assembly itself."""

    agent: str
    scenario: str | None
    trigger: str
    mode: str
    steps: tuple[Step, ...]
    context: Context = field(repr=False)

    def index(self, key: str) -> int | None:
        """Where the step `key` is in `steps` (None: there is no such step)."""
        return next((i for i, step in enumerate(self.steps) if step.key == key), None)


@dataclass
class Reading:
    """What the steps read: the workspace, the assembly and its inputs."""

    workspace: Workspace
    context: Context
    scenario: Scenario
    resolver: Resolver
    contents: Mapping[str, str]  # each skill's text as assembled (drafts in place)
    trashed: Sequence[Skill]
    selected: list[Skill]
    #: Each selected skill's text after each stage: "body" (its own text, the template
    #: part set aside), then one per stage of `STAGES`.
    texts: dict[str, list[TracedText]]

    @functools.cached_property
    def document(self) -> TracedText:
        return TracedText(self.context.document.removesuffix("\n"), self.context.origins)

    @functools.cached_property
    def unjoined(self) -> TracedText:
        """The document without what the layout added: the title and the blank lines and
        `---` rules that join parts and separate messages."""
        texts = self.document.texts()
        kept, origins = [], OriginsBuilder()
        for at, count, kind, _ in self.document.spans():
            if kind not in ("title", "separator"):
                kept += texts[at:at + count]
                origins.extend(self.document.origins[at:at + count])
        return TracedText("\n".join(kept), origins.build())
