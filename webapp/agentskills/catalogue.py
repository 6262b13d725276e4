"""The catalogue: the listing of every skill's name and description a client puts in the
context before any skill is used, measured against the budget the client gives it.

A client with a published budget (`clients.Client.budget_share` of the context window,
else its fallback) shortens a listing over it: Claude Code keeps every name and drops the
descriptions of the skills used least; Codex cuts descriptions, then leaves skills out.
Which skills a client uses least is not known here, so the catalogue shows the listing
whole, its size against the budget, and the skills whose descriptions cost most: the ones
to shorten first. A budget is in characters: a share of the window in tokens at about 4
characters a token (the ratio of Claude Code's own figures: 8,000 characters, 1% of 200,000
tokens). A client that publishes no budget gets its listing and size alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from webapp.pipeline import Diagnostic, Skill

from .clients import CLIENTS, Client
from .frontmatter import SkillMdError, parse_head
from .skill_md import head_for, skill_name

#: Characters a token, to turn a share of the context window into characters.
CHARS_PER_TOKEN = 4
#: How many of the costliest descriptions a catalogue names.
COSTLIEST = 5


@dataclass(frozen=True, slots=True)
class Listed:
    """One skill as a client lists it: its line, and whether its description was cut to
    the client's cap for one entry."""

    d_tag: str
    name: str
    line: str
    description: int
    cut: bool


@dataclass(frozen=True, slots=True)
class Catalogue:
    """A client's listing of an agent's skills, its size, and its budget (None: the client
    publishes none)."""

    client: Client
    listed: tuple[Listed, ...]
    hidden: tuple[str, ...]
    budget: int | None

    @property
    def text(self) -> str:
        return "".join(entry.line for entry in self.listed)

    @property
    def size(self) -> int:
        return sum(len(entry.line) for entry in self.listed)

    @property
    def over(self) -> int:
        """Characters over the budget (0 within it, or without one)."""
        return max(0, self.size - self.budget) if self.budget is not None else 0

    @property
    def share(self) -> float | None:
        """The listing's size as a fraction of the budget."""
        return self.size / self.budget if self.budget else None

    @property
    def costliest(self) -> list[Listed]:
        return sorted(self.listed, key=lambda e: -e.description)[:COSTLIEST]

    def problem(self) -> Diagnostic | None:
        """A `catalogue-overflow` warning when the listing is over the budget."""
        if not self.over:
            return None
        names = ", ".join(f"{e.d_tag} ({e.description:,})" for e in self.costliest)
        return Diagnostic("warning", "catalogue-overflow",
                          f"{self.client.name} lists {len(self.listed)} skills in "
                          f"{self.size:,} characters, {self.over:,} over its budget of "
                          f"{self.budget:,}: it shortens the listing, and some skills lose "
                          f"their description; the costliest descriptions: {names}")


def budget_of(client: Client, window: int) -> int | None:
    """The characters `client` gives its listing in a context window of `window` tokens
    (0: unknown, the fallback), or None when it publishes no budget."""
    if not client.budget_share:
        return None
    if window <= 0:
        return client.budget_fallback
    return int(window * client.budget_share * CHARS_PER_TOKEN)


def catalogue(client_id: str, skills: Sequence[tuple[Skill, str]], window: int) -> Catalogue:
    """`client_id`'s listing of `skills` (each with its SKILL.md head) in a context window of
    `window` tokens."""
    client = CLIENTS[client_id]
    listed, hidden = [], []
    for skill, head in skills:
        try:
            data, _ = parse_head(head_for(skill, head))
        except SkillMdError:
            data = {}
        name = data.get("name") if isinstance(data.get("name"), str) else skill_name(skill.d_tag)
        description = data.get("description")
        description = " ".join(description.split()) if isinstance(description, str) else ""
        if client.id == "claude-code" and data.get("disable-model-invocation") is True:
            hidden.append(skill.d_tag)  # only a person invokes it: the model is not told of it
            continue
        when = data.get("when_to_use") if client.id == "claude-code" else None
        if isinstance(when, str) and when.strip():
            description = f"{description} {' '.join(when.split())}".strip()
        cut = bool(client.entry_cap) and len(description) > client.entry_cap
        shown = description[:client.entry_cap] if cut else description
        listed.append(Listed(skill.d_tag, name, _line(client, name, shown), len(description),
                             cut))
    return Catalogue(client, tuple(listed), tuple(hidden), budget_of(client, window))


def _line(client: Client, name: str, description: str) -> str:
    """One skill's line as the client writes it (Codex adds the file's path)."""
    if client.id == "codex":
        return f"- {name}: {description} (file: .agents/skills/{name}/SKILL.md)\n"
    return f"- {name}: {description}\n"
