"""What the whole-agent preview and the comparison page show, as plain view data.

Built from the same pieces as the editor's preview (`preview`: message cards, request
bodies, problems; `source_view`: the Source table; `diffing`), with no draft skill.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from webapp.pipeline import SEVERITIES, Context, Diagnostic, Workspace
from webapp.textdiff.lines import Diff, diff_lines
from webapp.tokens import TokenCount, count_tokens
from webapp.tokens.window import Budget, Part, breakdown, budget_of

from .diff_window import COMPARED_LINES, Item, diff_page
from .document_window import DocumentWindow
from .messages import (
    BODY_CUT,
    MessageCard,
    Models,
    RequestBody,
    message_card,
    messages_text,
    request_bodies,
)
from .preview import Choice, problems_of, run
from .problems import ProblemsTab

#: Bars of the Budget tab's chart unless all are asked for: 250 bars (200 skills and 50
#: tools) were 85 KB of SVG, and past the first few dozen each is a sliver.
CHART_BARS = 40


@dataclass
class AgentPreview:
    """What the tabs show for one scenario: the context and its view data."""

    choice: Choice
    context: Context
    cards: list[MessageCard]
    window: DocumentWindow  # the Document tab's views (see `document_window`)
    bodies: list[RequestBody]
    problems: list[Diagnostic]
    total_tokens: TokenCount
    budget: Budget
    parts: list[Part]  # what fills the window, largest first

    @functools.cached_property
    def problems_tab(self) -> ProblemsTab:
        """The Problems tab's list and counts (the budget's verdict included)."""
        return ProblemsTab.of(self.problems)

    @property
    def counts(self) -> dict[str, int]:
        """The problems by severity (the summary line's), from the Problems tab's count."""
        counts = self.problems_tab.counts
        return {name: getattr(counts, name) for name in SEVERITIES}

    @property
    def trigger(self) -> str:
        return self.context.trigger

    def chart(self, every: bool = False) -> tuple[list[Part], int, int]:
        """The parts the Budget chart draws (the largest `CHART_BARS`, or `every` one),
        and how many parts and tokens are left out."""
        shown = self.parts if every else self.parts[:CHART_BARS]
        rest = self.parts[len(shown):]
        return shown, len(rest), sum(part.tokens for part in rest)


@dataclass
class Comparison:
    """Two previews and the diffs of their documents and messages."""

    a: AgentPreview
    b: AgentPreview
    document_diff: Diff
    messages_diff: Diff
    only_a: list[Diagnostic]
    only_b: list[Diagnostic]

    def page(self, which: str, layout: str) -> list[Item]:
        """The first page of the `document` or `messages` diff's table in `layout`."""
        diff = self.document_diff if which == "document" else self.messages_diff
        return diff_page(diff, which, layout)


def build(workspace: Workspace, choice: Choice, models: Models,
          link: Callable[[str], str] | None = None) -> AgentPreview:
    """Assemble `workspace` for `choice` and build the tabs' view data.

    `models` are written into the request bodies; `link(d_tag)` is the URL of a skill's
    editor, where the Source tab's lines link to (without it, they do not link).
    """
    context = run(workspace, choice)
    tokens = count_tokens(context.document)
    budget = budget_of(context.document, workspace.agent, tokens)
    window = DocumentWindow(context, None, link)
    return AgentPreview(
        choice=choice,
        context=context,
        cards=[message_card(m) for m in context.messages],
        window=window,
        bodies=request_bodies(context.messages, models,
                              0 if window.whole else BODY_CUT),
        problems=problems_of(context, budget),
        total_tokens=tokens,
        budget=budget,
        parts=breakdown(context),
    )


def build_comparison(workspace: Workspace, a: Choice, b: Choice, models: Models) -> Comparison:
    left, right = build(workspace, a, models), build(workspace, b, models)
    in_a, in_b = set(left.problems), set(right.problems)
    return Comparison(
        a=left, b=right,
        document_diff=compared(left.context, right.context, "document"),
        messages_diff=compared(left.context, right.context, "messages"),
        only_a=[d for d in left.problems if d not in in_b],
        only_b=[d for d in right.problems if d not in in_a],
    )


def compared(left: Context, right: Context, which: str) -> Diff:
    """The diff of two contexts' `document` or `messages` (as `messages_text`), its first
    `COMPARED_LINES` lines made."""
    if which == "document":
        return diff_lines(left.document, right.document, limit=COMPARED_LINES)
    return diff_lines(messages_text(left.messages), messages_text(right.messages),
                      limit=COMPARED_LINES)
