"""What the preview tabs show, computed from a workspace, a draft skill and a scenario.

`build_preview` assembles the context twice — once from the saved skills, once with
the draft in place of the saved skill — and turns the results into plain view data:
message cards with sizes, the highlighted source with its provenance gutter, diffs,
request bodies, problems and the stage trace. Templates only lay this out. Both are
assembled where the pipeline's `preview_target` says the draft is used (`follow`), so
the preview shows the skill being edited whatever scenario the picker names.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webapp.bounds.lru import LRU
from webapp.pipeline import (
    SEVERITIES,
    Context,
    Diagnostic,
    PreviewTarget,
    Skill,
    TestResult,
    Workspace,
    assemble,
    dump_bundle,
    dumps_json,
    preview_target,
    severity_rank,
)
from webapp.store import context_tests
from webapp.textdiff.lines import SHOWN_ROWS, Diff, diff_lines
from webapp.tokens import TokenCount, count_tokens
from webapp.tokens.window import Budget, budget_of, budget_problem

from .document_window import DocumentWindow, Opened
from .messages import (
    BODY_CUT,
    MessageCard,
    Models,
    RequestBody,
    message_card,
    messages_text,
    request_bodies,
)
from .problems import ProblemCounts, ProblemsTab

#: The model names of the request bodies when the app's settings name none.
DEFAULT_MODELS = Models()

@dataclass(frozen=True, slots=True)
class Choice:
    """The scenario picker: a scenario name and optional overrides of its fields.

    None means "the scenario's own": no trigger, message or provider override.
    """

    scenario: str | None = None
    trigger: str | None = None
    message: str | None = None
    provider: str | None = None


@dataclass
class Preview:
    """Everything the preview tabs need."""

    d_tag: str
    target: PreviewTarget  # where it was assembled: the followed scenario, host, alone
    context: Context
    saved: Context
    cards: list[MessageCard]
    window: DocumentWindow  # the Document tab's views (see `document_window`)
    bodies: list[RequestBody]
    problems: list[Diagnostic]
    total_tokens: TokenCount
    trigger: str
    budget: Budget
    #: The tests of the scenario the preview follows, run on the draft: the Tests tab's
    #: badge, on every keystroke.
    scenario_tests: context_tests.TestRun = context_tests.TestRun(())
    #: The context the badge's tests ran on when it is the preview's own (the Tests tab
    #: takes those results as they are).
    tests_context: Context | None = None
    #: The workspace with the draft in it (the Tests tab runs every scenario on it).
    drafted: Workspace | None = None
    #: The picker's choice as the preview was assembled: the followed scenario and trigger.
    followed: Choice = Choice()

    # The diffs are made when a shown tab asks for them: a keystroke's answer carries one
    # tab, and a long draft's diffs cost seconds (every line a `DiffLine`).

    @property
    def changed(self) -> bool:
        """Whether the draft changes the document (the Diff tab's badge)."""
        return self.saved.document != self.context.document

    @functools.cached_property
    def document_diff(self) -> Diff:
        return diff_lines(self.saved.document, self.context.document, limit=SHOWN_ROWS)

    @functools.cached_property
    def messages_diff(self) -> Diff:
        return diff_lines(messages_text(self.saved.messages), messages_text(self.context.messages),
                          limit=SHOWN_ROWS)

    @functools.cached_property
    def tests(self) -> context_tests.TestRun:
        """The tests of every scenario whose context holds the skill, run on the draft:
        made when the Tests tab is open."""
        if self.drafted is None:
            return context_tests.TestRun(())
        known = ({self.followed.scenario or "": (self.tests_context, self.scenario_tests)}
                 if self.tests_context is not None else {})
        return context_tests.run_for_skill(self.drafted, self.d_tag, known)

    @functools.cached_property
    def test_rows(self) -> dict[str, list[TestRow]]:
        """The Tests tab's rows, by scenario in order."""
        return test_rows(self.tests, self.drafted)

    @functools.cached_property
    def problems_tab(self) -> ProblemsTab:
        """The Problems tab's list and counts (the budget's verdict included): its badge,
        heading and list, and the edited skill's own problems, as the skill list's badge
        counts them."""
        return ProblemsTab.of(self.problems, self.d_tag)

    @property
    def counts(self) -> dict[str, int]:
        """The problems by severity (the summary line's), from the Problems tab's count."""
        counts = self.problems_tab.counts
        return {name: getattr(counts, name) for name in SEVERITIES}

    @property
    def own(self) -> ProblemCounts:
        """The edited skill's own problems, as the skill list's badge counts them."""
        own = self.problems_tab.own
        assert own is not None  # made with the skill's d_tag
        return own


#: The model names an app writes into request bodies unless its config names others (the
#: app's config defaults; `skill-editor mcp`, which runs without an app, uses them as they are).
MODEL_DEFAULTS: dict[str, Any] = {"OPENAI_MODEL": DEFAULT_MODELS.openai,
                                  "ANTHROPIC_MODEL": DEFAULT_MODELS.anthropic,
                                  "ANTHROPIC_MAX_TOKENS": DEFAULT_MODELS.anthropic_max_tokens}


def preview_models(config: Mapping[str, Any]) -> Models:
    """The model names an app's `config` says to write into the request bodies."""
    return Models(openai=config["OPENAI_MODEL"], anthropic=config["ANTHROPIC_MODEL"],
                  anthropic_max_tokens=config["ANTHROPIC_MAX_TOKENS"])


def with_draft(workspace: Workspace, draft: Skill) -> Workspace:
    """`workspace` with `draft` in place of the saved skill of the same `d_tag` (or added)."""
    skills = list(workspace.skills)
    for i, skill in enumerate(skills):
        if skill.d_tag == draft.d_tag:
            skills[i] = draft
            break
    else:
        skills.append(draft)
    return dataclasses.replace(workspace, skills=tuple(skills))


def with_provider(workspace: Workspace, choice: Choice) -> Workspace:
    """Apply the picker's provider to the chosen scenario (assemble has no parameter for it)."""
    if choice.provider is None or not workspace.scenarios:
        return workspace
    name = choice.scenario or workspace.scenarios[0].name
    scenarios = tuple(dataclasses.replace(sc, provider=choice.provider) if sc.name == name else sc
                      for sc in workspace.scenarios)
    return dataclasses.replace(workspace, scenarios=scenarios)


def run(workspace: Workspace, choice: Choice) -> Context:
    """Assemble `workspace` for the picker's scenario and overrides."""
    return assemble(with_provider(workspace, choice), choice.scenario,
                    trigger=choice.trigger, message=choice.message)


def follow(workspace: Workspace, d_tag: str, choice: Choice) -> tuple[PreviewTarget, Choice]:
    """Where the preview of skill `d_tag` is assembled for the picker's `choice` (the
    pipeline's `preview_target`), and the choice that assembles it there: the followed
    scenario and trigger with the author's message and provider."""
    target = preview_target(workspace, d_tag, choice.scenario, choice.trigger)
    return target, dataclasses.replace(choice, scenario=target.scenario, trigger=target.trigger)


def run_followed(workspace: Workspace, draft: Skill, choice: Choice) -> tuple[Context, Choice]:
    """The context the preview of `draft` shows for `choice` (what "Append to context log"
    stores), and the choice it was assembled for."""
    drafted = with_draft(workspace, draft)
    target, followed = follow(drafted, draft.d_tag, choice)
    return run(target.workspace_for(drafted), followed), followed


#: The saved assemblies of the last few workspaces and choices. While an author types,
#: the saved skills stay the same and so does their assembly, which the diffs compare
#: the draft's with. Keyed on every input of `run`, so an entry is never stale.
saved_contexts: LRU[tuple[Any, ...], Context] = LRU("saved assemblies", 8)


def run_key(workspace: Workspace, choice: Choice) -> tuple[Any, ...]:
    """Everything `run(workspace, choice)` depends on, as a hashable value.

    Skills are hashable as they are; tools, bindings and scenarios hold JSON values
    (dicts), so they are keyed by their canonical JSON, which is small next to the skills.
    """
    rest = dumps_json([dump_bundle(dataclasses.replace(workspace, skills=()))],
                      sort_keys=True, default=repr)
    return workspace.skills, rest, choice


def run_saved(workspace: Workspace, choice: Choice) -> Context:
    """`run(workspace, choice)`, remembered for the last few saved workspaces.

    Assembling is deterministic but for the time in `log_entry`, which is not shown
    for the saved context: the preview shows the draft's.
    """
    key = run_key(workspace, choice)
    context = saved_contexts.get(key)
    if context is None:
        context = saved_contexts.put(key, run(workspace, choice))
    return context


def scenario_context(drafted: Workspace, target: PreviewTarget, followed: Choice,
                     context: Context) -> Context | None:
    """The preview's own assembly `context` when it is that of the followed scenario as
    written (no override of its trigger, message or provider, the skill not previewed
    alone), so its tests need not assemble it again; else None."""
    scenario = drafted.scenarios_by_name.get(followed.scenario or "")
    own = (scenario is not None and not target.alone and followed.message is None
           and followed.provider is None and followed.trigger in (None, scenario.trigger))
    return context if own else None


def scenario_tests(drafted: Workspace, followed: Choice, context: Context | None
                   ) -> context_tests.TestRun:
    """The tests of the scenario the preview follows, run on the draft (the Tests badge),
    on `context` when it is the scenario's (`scenario_context`)."""
    name = followed.scenario or ""
    if name not in drafted.scenarios_by_name:
        return context_tests.TestRun(())
    return context_tests.run(drafted, name, {name: context} if context else None)


def build_preview(workspace: Workspace, draft: Skill, choice: Choice,
                  models: Models = DEFAULT_MODELS, link: Callable[[str], str] | None = None,
                  whole: bool = False, opened: Sequence[Opened] = ()) -> Preview:
    """Assemble saved and draft contexts for `choice` and build every tab's view data.

    Both are assembled where the draft is used (`follow`: the decision is the draft's, so
    a draft that changes its triggers is followed), the saved skills under the same target.
    `link(d_tag)` is the URL of a skill's editor, where the Source tab's lines link to
    (without it, they do not link). `whole` shows the whole document even when it is
    large (a draft previewed without JavaScript: no link could load its folds again).
    `opened`: the Document tab's folds the author opened, shown open.
    """
    drafted = with_draft(workspace, draft)
    target, followed = follow(drafted, draft.d_tag, choice)
    original = target.workspace_for(workspace)
    if workspace.skills_by_tag.get(draft.d_tag) == draft:
        saved = context = saved_contexts.put(run_key(original, followed),
                                             run(original, followed))
    else:
        saved = run_saved(original, followed)
        context = run(target.workspace_for(drafted), followed)
    cards = [message_card(m) for m in context.messages]
    tokens = count_tokens(context.document)
    budget = budget_of(context.document, workspace.agent, tokens)
    window = DocumentWindow(context, draft.d_tag, link, whole, opened)
    tests_context = scenario_context(drafted, target, followed, context)
    return Preview(
        d_tag=draft.d_tag,
        target=target,
        context=context,
        saved=saved,
        cards=cards,
        window=window,
        bodies=request_bodies(context.messages, models, 0 if window.whole else BODY_CUT),
        problems=problems_of(context, budget),
        total_tokens=tokens,
        trigger=context.trigger,
        budget=budget,
        scenario_tests=scenario_tests(drafted, followed, tests_context),
        tests_context=tests_context,
        drafted=drafted,
        followed=followed,
    )


@dataclass(frozen=True, slots=True)
class TestRow:
    """A test as the Tests tab shows it: the result, and for a failed text its diff."""

    result: TestResult
    diff: Diff | None
    snapshot: bool  # a snapshot test: Approve the new output


def test_rows(run: context_tests.TestRun, workspace: Workspace | None
              ) -> dict[str, list[TestRow]]:
    """The rows of `run` for the Tests tab, by scenario in order; a snapshot test (of
    `workspace`'s scenarios) may be approved."""
    rows: dict[str, list[TestRow]] = {}
    scenarios = workspace.scenarios_by_name if workspace is not None else {}
    for result in run.results:
        sc = scenarios.get(result.scenario)
        is_snapshot = (result.index is not None and sc is not None
                       and isinstance(sc.expect[result.index], dict)
                       and "snapshot" in sc.expect[result.index])
        diff = (diff_lines(result.expected, result.actual, limit=SHOWN_ROWS)
                if not result.passed and (result.expected or result.actual) else None)
        rows.setdefault(result.scenario, []).append(TestRow(result, diff, is_snapshot))
    return rows


def problems_of(context: Context, budget: Budget) -> list[Diagnostic]:
    """The context's diagnostics and the budget's verdict, errors first."""
    verdict = budget_problem(budget)
    return sorted([*context.diagnostics, *([verdict] if verdict else [])], key=problem_key)


def problem_key(diagnostic: Diagnostic) -> tuple[int, str, int]:
    return (severity_rank(diagnostic.severity), diagnostic.skill or "",
            diagnostic.line or 0)


def own_problems(workspace: Workspace, d_tag: str, choice: Choice) -> ProblemCounts:
    """The saved skill `d_tag`'s own problems where its preview is assembled for `choice`
    (what its badge and its Problems tab count)."""
    target, followed = follow(workspace, d_tag, choice)
    return ProblemCounts.of(run(target.workspace_for(workspace), followed).diagnostics, d_tag)


def problem_counts(workspace: Workspace, choice: Choice) -> dict[str, ProblemCounts]:
    """Each saved skill's own problems where its preview is assembled for `choice`.

    The skill list's badges: the same target (`follow`) and the same count
    (`ProblemCounts.of`) as the Problems tab of that skill's preview, so for the skill
    being edited the two agree. Skills previewed under the same scenario and trigger share
    one assembly; a skill previewed alone gets its own. Skills without problems are left out.
    """
    contexts: dict[tuple[Any, ...], Context] = {}
    counts: dict[str, ProblemCounts] = {}
    for skill in workspace.skills:
        target, followed = follow(workspace, skill.d_tag, choice)
        key = (followed, skill.d_tag if target.alone else None)
        if key not in contexts:
            contexts[key] = run(target.workspace_for(workspace), followed)
        own = ProblemCounts.of(contexts[key].diagnostics, skill.d_tag)
        if own.total:
            counts[skill.d_tag] = own
    return counts
