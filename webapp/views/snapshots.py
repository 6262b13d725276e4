"""What the snapshot pages show, as plain view data: a snapshot (or the draft, before the
first publish) read scenario by scenario, and two sides compared.

A scenario's compiled context is shown as the agent preview shows it: its messages
rendered and the document line by line with each line's origin (`DocumentWindow`, which
sends a long document a page at a time), with the context tests' failures kept for that
scenario. A comparison reuses the Changes page's pieces (`views.publish`): every
scenario's document and messages diffed with provenance, and the skills that differ with
their text diffs. Each page holds the first few scenarios (`INLINE_SCENARIOS`) and skills
(`INLINE_SKILLS`); the others are panels loaded when scrolled to, so a page stays bounded
however many scenarios and skills the agent has.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from webapp import store
from webapp.pipeline import Context, Workspace, assemble, skills_in
from webapp.schema import models
from webapp.store import context_tests
from webapp.textdiff.lines import Diff, diff_lines
from webapp.tokens import TokenCount, count_tokens

from .document_window import DocumentWindow
from .file_changes import FileChange, file_changes
from .messages import MessageCard, message_card
from .publish import INLINE_SCENARIOS, ScenarioChange, scenario_changes

#: The changed skills whose text diffs the comparison page holds; the others are panels
#: loaded when scrolled to (`snapshots.compare_skill`). Ten skills of 2 KB changed on
#: every line were a megabyte of HTML with the scenarios' diffs; three are about 150 KB.
INLINE_SKILLS = 3
#: Lines of a skill's text diff made at most (the rest are counted): each side's whole
#: text is one link away, on the skill's history.
SKILL_DIFF_LINES = 100


@dataclass(frozen=True, slots=True)
class ScenarioContext:
    """One scenario's compiled context on one side; `context` is None for a panel the page
    leaves to be loaded when it is shown. `failures` are the context tests that failed in
    this scenario, as kept (`tests` None: no results were kept)."""

    name: str | None
    trigger: str
    tests: dict[str, Any] | None
    context: Context | None = None
    window: DocumentWindow | None = None
    cards: list[MessageCard] = field(default_factory=list)
    tokens: TokenCount | None = None

    @property
    def title(self) -> str:
        return self.name or "(default inputs)"

    @property
    def skills(self) -> list[str]:
        """The skills whose lines the document holds, in document order."""
        return skills_in(self.context) if self.context is not None else []

    @property
    def failures(self) -> list[dict[str, str]]:
        if self.tests is None:
            return []
        return [f for f in self.tests.get("failures", []) if f.get("scenario") == self.name]


def scenario_names(workspace: Workspace) -> list[str | None]:
    """The workspace's scenarios in order (`[None]` without any: the default inputs)."""
    return list(workspace.scenarios_by_name) or [None]


def scenario_context(workspace: Workspace, name: str | None, tests: dict[str, Any] | None,
                     link: Callable[[str], str] | None = None) -> ScenarioContext:
    """Scenario `name`'s context assembled, with its view data (`link(d_tag)`: where the
    Source view's lines link, none without it)."""
    context = assemble(workspace, name)
    return ScenarioContext(name, context.trigger, tests, context,
                           DocumentWindow(context, None, link),
                           [message_card(m) for m in context.messages],
                           count_tokens(context.document))


def scenario_contexts(workspace: Workspace, tests: dict[str, Any] | None,
                      link: Callable[[str], str] | None = None,
                      inline: int = INLINE_SCENARIOS) -> list[ScenarioContext]:
    """Every scenario's context, the first `inline` assembled, the others to be loaded."""
    found = []
    for index, name in enumerate(scenario_names(workspace)):
        if index < inline:
            found.append(scenario_context(workspace, name, tests, link))
        else:
            scenario = workspace.scenarios_by_name.get(name or "")
            found.append(ScenarioContext(name, scenario.trigger if scenario else "", tests))
    return found


def first_review(session: Session, agent: str, tests: context_tests.TestRun | None,
                 link: Callable[[str], str] | None = None) -> list[ScenarioContext]:
    """What the first publish shows to review: the draft's every scenario, whole, with the
    draft's context tests (`tests`, run by the Changes page)."""
    return scenario_contexts(store.load_workspace(session, agent),
                             tests.to_dict() if tests is not None else None, link)


def known_scenario(workspace: Workspace, name: str | None) -> bool:
    """Whether a panel may ask for scenario `name` (None: a workspace without scenarios)."""
    return name in scenario_names(workspace)


@dataclass(frozen=True, slots=True)
class SnapshotSkill:
    """A skill as a snapshot holds it; `has_history`: its versions can still be read (the
    skill exists now, in the trash or not)."""

    d_tag: str
    version: int | None
    name: str
    layer: int
    triggers: list[str]
    enabled: bool
    lines: int
    has_history: bool


@dataclass(frozen=True, slots=True)
class SnapshotPage:
    """A snapshot's page: the snapshot (as a side), its labels, its skills, every
    scenario's context, and the snapshots to compare it with."""

    side: store.Side
    labels: list[str]
    skills: list[SnapshotSkill]
    scenarios: list[ScenarioContext]
    snapshots: list[models.PublishedSnapshot]
    #: The draft's digest is this snapshot's: comparing with the draft shows nothing.
    is_draft: bool

    @property
    def snapshot(self) -> models.PublishedSnapshot:
        assert self.side.snapshot is not None
        return self.side.snapshot

    @property
    def previous(self) -> int | None:
        """The number before this one's, if any."""
        return self.snapshot.number - 1 if self.snapshot.number > 1 else None

    @property
    def latest(self) -> int:
        return self.snapshots[0].number


def snapshot_page(session: Session, agent: str, number: int) -> SnapshotPage:
    """Everything snapshot `number`'s page shows; raises `store.NotFound`."""
    side = store.read_side(session, agent, str(number))
    snapshot = side.snapshot
    assert snapshot is not None
    known = known_skills(session, agent)
    return SnapshotPage(
        side=side,
        labels=store.labels.labels_by_snapshot(session, agent).get(snapshot.id, []),
        skills=[_skill(skill, side.versions.get(skill["d_tag"]), known)
                for skill in side.bundle["skills"]],
        scenarios=scenario_contexts(side.workspace, snapshot.tests),
        snapshots=store.list_snapshots(session, agent),
        is_draft=store.is_published(session, agent, store.SnapshotRef(
            snapshot.id, snapshot.number, snapshot.digest)))


def known_skills(session: Session, agent: str) -> set[str]:
    """The d_tags whose versions can be read now (a skill in the trash too)."""
    return {row.d_tag for row in store.list_skills(session, agent, include_deleted=True)}


def _skill(skill: dict[str, Any], version: int | None, known: set[str]) -> SnapshotSkill:
    content = skill["content"]
    return SnapshotSkill(skill["d_tag"], version, skill["name"], int(skill["layer"]),
                         list(skill["triggers"]), bool(skill["enabled"]),
                         len(content.splitlines()), skill["d_tag"] in known)


@dataclass(frozen=True, slots=True)
class SkillDiff:
    """A skill that differs between the two sides, and its text's diff (None: a panel
    loaded when shown); `has_history`: each side's version can be read whole."""

    change: store.SkillDifference
    diff: Diff | None = None
    has_history: bool = False
    #: The files added, removed or changed, a text file's with its diff.
    files: tuple[FileChange, ...] = ()


def skill_diff(change: store.SkillDifference, known: set[str]) -> SkillDiff:
    """`change` with its text diffed, at most `SKILL_DIFF_LINES` lines made; `known`,
    the d_tags whose versions can be read (`known_skills`)."""
    return SkillDiff(change, diff_lines(change.content_before, change.content_after,
                                        limit=SKILL_DIFF_LINES), change.d_tag in known,
                     file_changes(change.files_before, change.files_after, diffs=True))


@dataclass(frozen=True, slots=True)
class ComparePage:
    """Two sides compared: what differs, the skills' text diffs, every scenario's diffs,
    and the snapshots the form offers."""

    a: store.Side
    b: store.Side
    differences: store.Differences
    skills: list[SkillDiff]
    scenarios: list[ScenarioChange]
    snapshots: list[models.PublishedSnapshot]

    @property
    def changed_scenarios(self) -> list[ScenarioChange]:
        return [sc for sc in self.scenarios if sc.state != "unchanged"]

    @property
    def unchanged_scenarios(self) -> list[ScenarioChange]:
        return [sc for sc in self.scenarios if sc.state == "unchanged"]


def default_refs(session: Session, agent: str, a: str | None, b: str | None
                 ) -> tuple[str, str]:
    """The two sides a comparison shows when the address names fewer: the snapshot before
    B (else the latest) on the left, the draft on the right. Raises `store.NotFound` when
    nothing was published."""
    b = b or store.DRAFT
    if a:
        return a, b
    latest = store.get_snapshot(session, agent)
    number = store.snapshot_number(b)
    if number is not None and 1 < number <= latest.number:
        return str(number - 1), b
    return str(latest.number), b


def compare_page(session: Session, agent: str, a_ref: str, b_ref: str,
                 inline_skills: int = INLINE_SKILLS) -> ComparePage:
    """Side `a_ref` compared with side `b_ref`; raises `store.NotFound` for either."""
    a = store.read_side(session, agent, a_ref)
    b = store.read_side(session, agent, b_ref)
    found = store.differences(a, b)
    known = known_skills(session, agent)
    return ComparePage(
        a=a, b=b, differences=found,
        skills=[skill_diff(change, known) if index < inline_skills else SkillDiff(change)
                for index, change in enumerate(found.skills)],
        scenarios=scenario_changes(a.workspace, b.workspace),
        snapshots=store.list_snapshots(session, agent))
