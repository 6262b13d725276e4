"""The context window as a budget: how many tokens the document takes against the
agent's window, whether it is over (or near) it, and what fills it.

The window is the agent's (`Agent.window`: its own setting, else its model's from
`pipeline.MODEL_WINDOWS`). Counts are `webapp.tokens`' (o200k_base, exact offline).
The web previews and the CLI's `check` take the same verdict from `budget_problem`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from webapp.pipeline import Agent, Context, Diagnostic, line_sources
from webapp.tokens import TokenCount, count_texts, count_tokens

#: From this share of the window on, the budget is "near" and says so with a warning.
NEAR = 0.9


@dataclass(frozen=True, slots=True)
class Budget:
    """The document's tokens against the window."""

    tokens: TokenCount
    window: int
    model: str

    @property
    def share(self) -> float:
        return self.tokens.n / self.window if self.window else 0.0

    @property
    def percent(self) -> str:
        """The share as a percentage for people: `0.4%`, `12%`, `103%`."""
        value = 100 * self.share
        return f"{value:.1f}%" if value < 10 else f"{value:.0f}%"

    @property
    def state(self) -> str:
        """`over` the window, `near` it (at least `NEAR` of it), else `ok`."""
        return "over" if self.share > 1 else "near" if self.share >= NEAR else "ok"


def budget_of(document: str, agent: Agent, tokens: TokenCount | None = None) -> Budget:
    """The budget of `document` for `agent` (`tokens`: its count, when already known)."""
    return Budget(tokens or count_tokens(document), agent.window, agent.model)


def budget_problem(budget: Budget) -> Diagnostic | None:
    """`over-budget`: an error past the window, a warning from `NEAR` of it; else None."""
    if budget.state == "ok":
        return None
    severity, where = ("error", "over") if budget.state == "over" else ("warning", "near")
    return Diagnostic(severity, "over-budget",
                      f"the document is {budget.tokens.n:,} tokens, {budget.percent} of the "
                      f"{budget.window:,}-token context window of {budget.model} ({where} it)")


@dataclass(frozen=True, slots=True)
class Part:
    """One thing that takes tokens: a skill's own lines, a tool's or a variable's text,
    the conversation (DM history and the incoming message) or the document's structure
    (title, role lines, separators)."""

    kind: str
    name: str
    tokens: int
    skill: str | None = None  # the skill to link to, for a skill's own lines
    exact: bool = True  # False: estimated (`count_texts`: past the characters counted)

    @property
    def label(self) -> str:
        return {"skill": self.name, "tool": f"tool {self.name}",
                "variable": f"{{{{{self.name}}}}}"}.get(self.kind, self.name)


_GROUPS = {"title": ("structure", "title, roles and separators"),
           "separator": ("structure", "title, roles and separators"),
           "role": ("structure", "title, roles and separators"),
           "history": ("conversation", "DM history and message"),
           "message": ("conversation", "DM history and message")}


def breakdown(context: Context) -> list[Part]:
    """What fills the window, largest first: the document's lines grouped by where they
    came from (`context.origins`), each group's text counted on its own, all of them
    sharing what one count may count exactly (`count_texts`)."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    lines, at = context.document.split("\n"), 0
    for kind, skill, name, count in line_sources(context.origins):  # a run at a time
        if kind in _GROUPS:
            key = _GROUPS[kind]
        elif kind in ("tool", "variable"):
            key = (kind, name or "?")
        else:
            key = ("skill", skill or "?")
        groups[key] += lines[at:at + count]
        at += count
    counts = count_texts(["\n".join(lines) for lines in groups.values()])
    parts = [Part(kind, name, counted.n, name if kind == "skill" else None, counted.exact)
             for (kind, name), counted in zip(groups, counts, strict=True)]
    return sorted(parts, key=lambda part: (-part.tokens, part.kind, part.name))
