"""What an explanation of the pipeline (`explain`) is made of: its steps and what they
show, and what the steps read (`Reading`: the workspace, the assembly and its inputs)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from ..blocks import parse_skill
from ..origins import OriginsBuilder
from ..result import Context
from ..variables import Resolver
from ..workspace import Scenario, Skill, Workspace
from .skills import EMPTY, SkillStep, TracedText, body_text


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


class StepName(NamedTuple):
    """A step's address and name, as a list of every step shows it."""

    key: str
    name: str


@dataclass(frozen=True, slots=True)
class Explanation:
    """The steps of one assembly that were asked for (every step unless `explain` was
    given `only`), in order, the assembly itself, and every step's key and name
    (`outline`, whichever were made)."""

    agent: str
    scenario: str | None
    trigger: str
    mode: str
    steps: tuple[Step, ...]
    context: Context = field(repr=False)
    outline: tuple[StepName, ...] = ()

    def index(self, key: str) -> int | None:
        """Where the step `key` is in `steps` (None: there is no such step, or it was not
        made)."""
        return next((i for i, step in enumerate(self.steps) if step.key == key), None)

    def place(self, key: str) -> int | None:
        """Where the step `key` is in `outline`: among every step (None: no such step)."""
        return next((i for i, step in enumerate(self.outline) if step.key == key), None)


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

    @functools.cached_property
    def texts(self) -> dict[str, list[TracedText]]:
        """Each selected skill's text after each stage: "body" (its own text, the template
        part set aside), then one per stage of `STAGES` (made for the skills' steps
        alone: parsing every skill again is a tenth of a 20 MB agent's explanation)."""
        texts = {}
        for trace in self.context.trace:
            parsed = parse_skill(trace.d_tag, trace.stages[0].text)  # its text as assembled
            texts[trace.d_tag] = [body_text(trace.d_tag, parsed), *(
                TracedText(stage.text, stage.origins) if stage.origins else EMPTY
                for stage in trace.stages[1:])]
        return texts

    @functools.cached_property
    def document(self) -> TracedText:
        return TracedText(self.context.document.removesuffix("\n"), self.context.origins)

    @functools.cached_property
    def unjoined(self) -> TracedText:
        """The document without what the layout added: the title and the blank lines and
        `---` rules that join parts and separate messages."""
        texts = self.document.texts()
        kept, origins = [], OriginsBuilder()
        # Next runs kept as one: a document whose every line holds a value has a span a
        # line, and each extend costs a slice of the origins.
        joined: list[list[int]] = []
        for at, count, kind, _ in self.document.spans():
            if kind in ("title", "separator"):
                continue
            if joined and joined[-1][1] == at:
                joined[-1][1] = at + count
            else:
                joined.append([at, at + count])
        for start, stop in joined:
            kept += texts[start:stop]
            origins.extend(self.document.origins[start:stop])
        return TracedText("\n".join(kept), origins.build())
