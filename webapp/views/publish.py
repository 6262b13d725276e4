"""What the Changes page shows, as plain view data: for every scenario, the diff between
the published and the current compiled context, each changed line with its provenance.

The diffs are `diffing.diff_lines` (the compare page's and the preview's Diff tab's);
each line is given the `Origin` of the line it shows, from the assembly that wrote it:
a removed line the published context's, an added or unchanged line the current one's.
The messages are diffed as the compare page diffs them (`messages_text`), their lines
labelled from the document's provenance, which lays out the same messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from webapp import store
from webapp.pipeline import Context, Origin, OriginsBuilder, Workspace, assemble
from webapp.schema import models
from webapp.store import context_tests, test_runs
from webapp.textdiff.lines import Diff, DiffLine, diff_lines

from .messages import messages_text

#: Changed and context lines shown per diff at most; a larger change says how many more
#: lines it has (the page stays bounded however large the workspace).
MAX_DIFF_LINES = 300

_HEADER = Origin("role")  # the `─── message 1: system ───` line: the role line of the messages diff


@dataclass(frozen=True, slots=True)
class Labelled:
    """A diff line and the origin of the text it shows (None: nothing to say)."""

    line: DiffLine
    origin: Origin | None

    @property
    def label(self) -> str:
        return self.origin.label if self.origin is not None else ""


@dataclass(frozen=True, slots=True)
class LabelledHunk:
    header: str
    lines: tuple[Labelled, ...]


@dataclass(frozen=True, slots=True)
class LabelledDiff:
    """A diff with a label on every line; `hidden` lines were left out (`MAX_DIFF_LINES`)."""

    hunks: tuple[LabelledHunk, ...]
    added: int
    removed: int
    hidden: int

    @property
    def changed(self) -> bool:
        return bool(self.hunks)


@dataclass(frozen=True, slots=True)
class ScenarioChange:
    """One scenario's published and current contexts and their diffs.

    `state` is `changed`, `unchanged`, `added` (only in the workspace now) or `removed`
    (only in the snapshot); `name` is None for a workspace without scenarios. `document`
    and `messages` are None for a panel the page leaves to be loaded when it is shown
    (`INLINE_SCENARIOS`).
    """

    name: str | None
    state: str
    document: LabelledDiff | None = None
    messages: LabelledDiff | None = None

    @property
    def title(self) -> str:
        return self.name or "(default inputs)"


#: The changed scenarios whose diffs the Changes page holds; the others are panels loaded
#: when scrolled to (`publish.scenario`). Assembling is cheap (digests of the two contexts
#: decide the state) but diffing a large document is not, and neither is its markup: a
#: 500-skill workspace with ten changed scenarios was a 3 MB page taking 1.4 s.
INLINE_SCENARIOS = 2


def scenario_names(published: Workspace, current: Workspace) -> list[str | None]:
    """Every scenario of either workspace, the current order first, then the removed ones
    (`[None]` when neither has one: both are assembled with the default inputs)."""
    names: list[str | None] = list(current.scenarios_by_name)
    names += [name for name in published.scenarios_by_name if name not in names]
    return names or [None]


def scenario_changes(published: Workspace, current: Workspace,
                     inline: int = INLINE_SCENARIOS) -> list[ScenarioChange]:
    """Every scenario's change, the diffs of the first `inline` changed ones included."""
    changes = []
    for name in scenario_names(published, current):
        before, after = _assembled(published, name), _assembled(current, name)
        state = _state(before, after)
        if state != "unchanged" and inline > 0:
            inline -= 1
            changes.append(_diffed(name, state, before, after))
        else:
            changes.append(ScenarioChange(name, state))
    return changes


def scenario_change(published: Workspace, current: Workspace, name: str | None
                    ) -> ScenarioChange | None:
    """One scenario's change with its diffs; None when neither workspace has it."""
    if name not in scenario_names(published, current):
        return None
    before, after = _assembled(published, name), _assembled(current, name)
    return _diffed(name, _state(before, after), before, after)


def _state(before: Context | None, after: Context | None) -> str:
    if before is None or after is None:
        return "added" if before is None else "removed"
    same = before.document == after.document and before.messages == after.messages
    return "unchanged" if same else "changed"


def _diffed(name: str | None, state: str, before: Context | None, after: Context | None
            ) -> ScenarioChange:
    # Made up to the lines shown, the rest counted: two documents of 20 MB that differ
    # throughout were 300,000 lines made, past the worker's deadline and then in this process.
    document = labelled(diff_lines(_document(before), _document(after), limit=MAX_DIFF_LINES),
                        _provenance(before), _provenance(after))
    messages = labelled(diff_lines(_messages(before), _messages(after), limit=MAX_DIFF_LINES),
                        message_origins(before), message_origins(after))
    return ScenarioChange(name, state, document, messages)


def labelled(diff: Diff, old: Sequence[Origin], new: Sequence[Origin],
             most: int = MAX_DIFF_LINES) -> LabelledDiff:
    """`diff` with each line's origin: a removed line's in `old`, any other line's in `new`
    (both indexed by line number); at most `most` lines, whole hunks at a time (but the
    last hunk a `limit`ed diff made, which ends where it stopped), the lines `diff` left
    unmade counted as hidden."""
    hunks, shown, hidden = [], 0, diff.unmade_lines
    for hunk in diff.hunks:
        if shown + len(hunk.lines) > most and hunks:
            hidden += len(hunk.lines)
            continue
        lines = tuple(Labelled(line, _origin(old, line.old_no) if line.kind == "del"
                               else _origin(new, line.new_no)) for line in hunk.lines[:most])
        hidden += len(hunk.lines) - len(lines)
        shown += len(lines)
        hunks.append(LabelledHunk(hunk.header, lines))
    return LabelledDiff(tuple(hunks), diff.added, diff.removed, hidden)


def message_origins(context: Context | None) -> Sequence[Origin]:
    """The origin of each line of `messages_text(context.messages)`, from the document's
    origins (each message there is a `role:` line and its content, a blank line between
    two); empty when the two do not line up, so no line is labelled wrongly. Kept as
    runs, as the document's are: a diff reads the few lines it shows."""
    if context is None:
        return ()
    document, origins, at = context.origins, OriginsBuilder(), 0
    for index, message in enumerate(context.messages):
        at += 2 if index else 1  # the blank line between messages, the `role:` line
        count = message["content"].count("\n") + 1
        origins.append(_HEADER)
        origins.extend_between(document, at, at + count)
        at += count
    return origins.build() if at == len(document) else ()


def _assembled(workspace: Workspace, name: str | None) -> Context | None:
    if name is not None and name not in workspace.scenarios_by_name:
        return None
    return assemble(workspace, name)


def _document(context: Context | None) -> str:
    return context.document if context is not None else ""


def _messages(context: Context | None) -> str:
    return messages_text(context.messages) if context is not None else ""


def _provenance(context: Context | None) -> Sequence[Origin]:
    return context.origins if context is not None else ()


def _origin(origins: Sequence[Origin], number: int | None) -> Origin | None:
    if number is None or not 0 < number <= len(origins):
        return None
    return origins[number - 1]


@dataclass(frozen=True, slots=True)
class ChangesPage:
    """The Changes page: the latest snapshot (None: never published), what changed since
    and how every scenario's context changes, and every snapshot, newest first; and what
    the agent is given, the snapshot the `production` label gives (None: no label)."""

    latest: models.PublishedSnapshot | None
    snapshots: list[models.PublishedSnapshot]
    changes: store.Changes | None
    scenarios: list[ScenarioChange]
    unpublished: bool
    #: The draft's context tests now (the publish gate runs the same).
    tests: context_tests.TestRun | None = None
    served: models.PublishedSnapshot | None = None
    served_label: str = store.labels.PRODUCTION

    @property
    def latest_number(self) -> int:
        return self.latest.number if self.latest is not None else 0

    @property
    def changed_scenarios(self) -> list[ScenarioChange]:
        return [sc for sc in self.scenarios if sc.state != "unchanged"]

    @property
    def unchanged_scenarios(self) -> list[ScenarioChange]:
        return [sc for sc in self.scenarios if sc.state == "unchanged"]


def changes_page(session: Session, agent: str) -> ChangesPage:
    """Everything the Changes page shows for `agent` (the diffs only when there is a
    snapshot to compare with and the digests differ)."""
    snapshots = store.list_snapshots(session, agent)
    latest = snapshots[0] if snapshots else None
    unpublished = store.has_unpublished_changes(session, agent)
    changes, scenarios, tests = None, [], None
    if unpublished:
        draft = store.load_workspace(session, agent)  # read once: a 20 MB agent's is 0.2 s
        if latest is not None:
            changes = store.changes_since(session, agent, latest.number)
            scenarios = scenario_changes(store.snapshot_workspace(latest), draft)
        tests = test_runs.run_kept(session, agent, draft)
    served = store.labelled_or_none(session, agent) if latest is not None else None
    return ChangesPage(latest, snapshots, changes, scenarios, unpublished, tests, served)


def scenario_panel(session: Session, agent: str, name: str | None
                   ) -> tuple[models.PublishedSnapshot, ScenarioChange]:
    """One scenario's diffs against the latest snapshot (a panel the page loads when shown).

    Raises `store.NotFound` without a snapshot or when neither side has the scenario.
    """
    latest = store.get_snapshot(session, agent)
    change = scenario_change(store.snapshot_workspace(latest),
                             store.load_workspace(session, agent), name)
    if change is None:
        raise store.NotFound(f"no scenario {name!r} in the workspace or in snapshot "
                             f"#{latest.number}")
    return latest, change
