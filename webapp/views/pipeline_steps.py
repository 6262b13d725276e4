"""What the pipeline's step pages and the Pipeline tabs show: the pipeline's `explain`
steps with their diffs, counts and provenance, as plain view data (no Flask).

A step page shows one step: what it does, what came in and went out (a diff whose every
line says where it came from), lines and tokens. A skill stage shows each selected
skill's part, foldable; the diffs of at most `SKILLS_SHOWN` skills are made (the one
asked for first), the others are listed with their counts and a link, so a 200-skill
agent's page stays a page.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from webapp.pipeline import (
    Context,
    Explanation,
    Origin,
    Skill,
    SkillStep,
    Step,
    StepName,
    TracedText,
    Workspace,
    explain,
)
from webapp.textdiff.lines import SHOWN_ROWS, Diff, DiffLine, diff_lines
from webapp.tokens import TokenCount, count_tokens

from .diff_window import STAGE_PAGE, diff_page, paged
from .messages import BODY_CUT, Models, RequestBody, request_bodies
from .preview import Choice, Preview, follow, with_draft, with_provider

#: Skills of a skill stage whose diff a step page makes (the rest are listed).
SKILLS_SHOWN = 8
#: Rows of a table of a step (a diff, a text) shown; the rest are counted.
STEP_ROWS = 200
#: Characters of text a step page shows in all, shared by its tables: a value written a
#: thousand times, or a line of a megabyte, is cut (and said so), not sent whole.
SHOWN_CHARS = 300_000
#: Characters of a value the table of values shows.
VALUE_CHARS = 600
#: Skills a step page opens (their `<details>`) without being asked: a few, so the page
#: reads as the stage without a click; with more, the one asked for or the first changed.
OPEN_ALL = 3


def explained(workspace: Workspace, choice: Choice, trashed: tuple[Skill, ...] = (),
              assembled: Context | None = None, only: tuple[str, ...] | None = None
              ) -> Explanation:
    """`explain` for the picker's choice, as the previews assemble it (`preview.run`)
    (`only`: the steps to make, as `explain` takes them)."""
    return explain(with_provider(workspace, choice), choice.scenario, trigger=choice.trigger,
                   message=choice.message, trashed=trashed, assembled=assembled, only=only)


#: The steps a step's page shows besides its own: the request step lists the messages'.
SHOWS = {"request": ("messages",)}


def step_explained(workspace: Workspace, choice: Choice, key: str,
                   trashed: tuple[Skill, ...] = ()) -> Explanation:
    """`explained`, making only what step `key`'s page shows (`SHOWS`): a step of a
    20 MB agent costs its own reading, not every step's."""
    return explained(workspace, choice, trashed, only=(key, *SHOWS.get(key, ())))


def preview_explained(preview: Preview, trashed: tuple[Skill, ...] = ()) -> Explanation:
    """The explanation of the editor's preview: the draft in place, where the preview is
    assembled (its target), read from the preview's own assembly."""
    assert preview.drafted is not None, "`build_preview` always sets it"
    return explained(preview.target.workspace_for(preview.drafted), preview.followed, trashed,
                     assembled=preview.context)


@dataclass(frozen=True, slots=True)
class Count:
    """A text's size: lines and tokens (None: not counted, for a skill's part a step page
    lists without its diff: 200 skills of 100 KB are 40 MB to count, seconds a page)."""

    lines: int
    tokens: TokenCount | None = None


def count(text: TracedText) -> Count:
    return Count(text.lines, count_tokens(text.text))


def cut_line(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and how long it is."""
    if len(text) <= limit:
        return text
    return f"{text[:max(limit, 0)]}… [{len(text):,} characters in all]"


#: A table's rows as a page shows them: a diff's hunks (header, lines) or a text's
#: (number, line, origin); and how many rows are left out.
Shown = tuple[list[Any], int]


def text_shown(text: TracedText, chars: int) -> Shown:
    """The lines of `text` a page shows: at most `STEP_ROWS`, and `chars` characters in
    all (the line that passes them cut)."""
    rows, left = [], chars
    for number, (line, origin) in enumerate(text.rows(), 1):
        if number > STEP_ROWS or left <= 0:
            return rows, text.lines - len(rows)
        rows.append((number, cut_line(line, left), origin))
        left -= len(line)
    return rows, 0


@dataclass(frozen=True, slots=True)
class Traced:
    """A diff of two traced texts, which says where each of its lines came from."""

    diff: Diff
    before: TracedText
    after: TracedText

    def origin(self, line: DiffLine) -> Origin:
        """The origin of a line of the diff: the new text's, or for a removed line the old."""
        if line.new_no is not None:
            return self.after.origins[line.new_no - 1]
        return self.before.origins[(line.old_no or 1) - 1]

    def shown(self, chars: int) -> Shown:
        """The diff's hunks as a page shows them: at most `STEP_ROWS` rows, `chars`
        characters in all (the line that passes them cut)."""
        hunks, hidden = self.diff.cut("unified", STEP_ROWS)
        out, left = [], chars
        for header, lines in hunks:
            kept = []
            for line in lines:
                if left <= 0:
                    hidden += 1
                    continue
                text = line.text
                if len(text) > left:
                    line = dataclasses.replace(line, parts=((cut_line(text, left), False),))
                left -= len(text)
                kept.append(line)
            if kept:
                out.append((header, kept))
        return out, hidden


def traced_diff(before: TracedText, after: TracedText) -> Traced:
    return Traced(diff_lines(before.text, after.text, limit=STEP_ROWS), before, after)


@dataclass(frozen=True, slots=True)
class SkillView:
    """A skill's part of a skill stage as the page shows it (`diff` None: not made, nor
    its tokens counted, past `SKILLS_SHOWN`)."""

    part: SkillStep
    before: Count
    after: Count
    diff: Traced | None
    open: bool


@dataclass
class StepPage:
    """One step of the pipeline, with its neighbours, as its page shows it."""

    explanation: Explanation
    #: The step's place among every step (`Explanation.outline`).
    index: int
    #: The skill asked for (`?skill=`): its part is open and its diff made first.
    skill: str | None = None
    models: Models = dataclasses.field(default_factory=Models)

    @property
    def step(self) -> Step:
        found = self.explanation.index(self.steps[self.index].key)
        assert found is not None, "the explanation made the page's step"
        return self.explanation.steps[found]

    @property
    def steps(self) -> tuple[StepName, ...]:
        return self.explanation.outline

    @property
    def previous(self) -> StepName | None:
        return self.steps[self.index - 1] if self.index else None

    @property
    def next(self) -> StepName | None:
        return self.steps[self.index + 1] if self.index + 1 < len(self.steps) else None

    def shown(self, key: str) -> Step:
        """Another step the page shows (`SHOWS`)."""
        found = self.explanation.index(key)
        assert found is not None, f"the explanation made step {key}"
        return self.explanation.steps[found]

    @functools.cached_property
    def before(self) -> Count:
        return count(self.step.before)

    @functools.cached_property
    def after(self) -> Count:
        return count(self.step.after)

    @functools.cached_property
    def diff(self) -> Traced | None:
        """The step's diff, for a step whose texts are shown as one (not the skills', the
        selection's or the request's, shown their own way)."""
        step = self.step
        if step.skills or step.selection or step.key == "request":
            return None
        return traced_diff(step.before, step.after)

    @functools.cached_property
    def skills(self) -> list[SkillView]:
        parts = self.step.skills
        wanted = [p for p in parts if p.d_tag == self.skill]
        shown = {p.d_tag for p in [*wanted, *parts][:SKILLS_SHOWN]}
        first_changed = next((p.d_tag for p in parts if p.changed), None)
        opened = (self.skill if wanted else first_changed)
        return [SkillView(p, *((count(p.before), count(p.after),
                                traced_diff(p.before, p.after)) if p.d_tag in shown else
                               (Count(p.before.lines), Count(p.after.lines), None)),
                          len(parts) <= OPEN_ALL or p.d_tag == opened)
                for p in parts]

    @functools.cached_property
    def chars(self) -> int:
        """The characters each table of the page may show (`SHOWN_CHARS` shared)."""
        tables = (sum(1 for view in self.skills if view.diff is not None) * 2
                  if self.step.skills else 3)
        return SHOWN_CHARS // max(tables, 1)

    def value(self, text: str) -> str:
        """A value as the table of values shows it (cut past `VALUE_CHARS`)."""
        return cut_line(text, VALUE_CHARS)

    def text(self, text: TracedText) -> Shown:
        """A text's lines as the page shows them (`text_shown`, its share of the page)."""
        return text_shown(text, self.chars)

    def rows(self, traced: Traced) -> Shown:
        """A diff's rows as the page shows them (`Traced.shown`, its share of the page)."""
        return traced.shown(self.chars)

    @functools.cached_property
    def bodies(self) -> list[RequestBody]:
        """The provider request bodies (the request step)."""
        return request_bodies(self.explanation.context.messages, self.models, BODY_CUT)


# -- the editor's Pipeline tab: the whole pipeline, and the edited skill's stages in full


@dataclass(frozen=True, slots=True)
class StageView:
    """A stage of one skill as the editor's Pipeline tab shows it: its name, its text,
    its diff against the stage before (None for the first, the skill as written) and
    what it did in words (why nothing changed, when nothing did)."""

    name: str
    text: str
    diff: Diff | None
    note: str = ""

    def page(self, index: int, layout: str, start: int = 0, end: int | None = None
             ) -> list[Any]:
        """Rows `start`..`end` of this stage (the `index`th) as the tab shows them, a page
        of `STAGE_PAGE` and a fold for the rest: its diff's table in `layout`, or for the
        first stage (`text`) the lines of its text, each with its newline."""
        if self.diff is None:
            return paged(self.text.splitlines(keepends=True), str(index), "text", start, end,
                         STAGE_PAGE)
        return diff_page(self.diff, str(index), layout, start, end, STAGE_PAGE)


#: The first stage of a skill's list: its own text, before any stage.
AS_WRITTEN = "as written"


def stage_views(explanation: Explanation, d_tag: str) -> list[StageView]:
    """Skill `d_tag`'s stages (the edited skill's, or its host's): the skill as written
    (its template part set aside, said in the first stage's note), then each stage of
    `STAGES` diffed against the one before, with what it did in words. Empty when the
    trigger does not select `d_tag`."""
    parts = [(step, part) for step in explanation.steps for part in step.skills
             if part.d_tag == d_tag]
    if not parts:
        return []
    first = parts[0][1]
    views = [StageView(AS_WRITTEN, first.before.text, None)]
    for step, part in parts:
        views.append(StageView(step.name.lower(), part.after.text,
                               diff_lines(part.before.text, part.after.text, limit=SHOWN_ROWS),
                               part.note))
    return views


@dataclass
class EditorPipeline:
    """The editor's Pipeline tab: the whole pipeline of the preview, and the stages of the
    skill it follows (the edited one, or its host)."""

    explanation: Explanation
    stages: list[StageView]


def editor_pipeline(preview: Preview, trashed: tuple[Skill, ...] = ()) -> EditorPipeline:
    explanation = preview_explained(preview, trashed)
    return EditorPipeline(explanation,
                          stage_views(explanation, preview.target.host or preview.d_tag))


def stages_followed(workspace: Workspace, draft: Skill, choice: Choice) -> list[StageView]:
    """The Pipeline tab's stages of the preview of `draft` for `choice` (what a fold of a
    stage pages through): its own, or its host's where it is shown through one."""
    drafted = with_draft(workspace, draft)
    target, followed = follow(drafted, draft.d_tag, choice)
    explanation = explained(target.workspace_for(drafted), followed)
    return stage_views(explanation, target.host or draft.d_tag)
