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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webapp.pipeline import Diagnostic, Skill

from .clients import CLIENTS, Client
from .frontmatter import SkillMdError, parse_head
from .listing import cut_at, leaves_out, listed_description
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
    publishes none); `hidden` are the skills it leaves out, `why` the lint code of each
    (`listing.leaves_out`)."""

    client: Client
    listed: tuple[Listed, ...]
    hidden: tuple[str, ...]
    budget: int | None
    why: tuple[str, ...] = ()

    @property
    def left_out(self) -> list[tuple[str, str]]:
        """`(d_tag, code)` of each skill the client leaves out."""
        return list(zip(self.hidden, self.why, strict=True))

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
        return overflow(self.client, self.budget,
                        [(e.d_tag, len(e.line), e.description) for e in self.listed])


def overflow(client: Client, budget: int | None,
             entries: Sequence[tuple[str, int, int]]) -> Diagnostic | None:
    """A `catalogue-overflow` warning when a listing of `entries` (`(d_tag, line length,
    description length)` in listing order) is over `budget`: the catalogue page's, and the
    editor's Problems tab's from the lengths kept on each skill's row (`listing_facts`)."""
    size = sum(line for _, line, _ in entries)
    if budget is None or size <= budget:
        return None
    costliest = sorted(entries, key=lambda e: -e[2])[:COSTLIEST]
    names = ", ".join(f"{d_tag} ({description:,})" for d_tag, _, description in costliest)
    return Diagnostic("warning", "catalogue-overflow",
                      f"{client.name} lists {len(entries)} skills in {size:,} characters, "
                      f"{size - budget:,} over its budget of {budget:,}: it shortens the "
                      f"listing, and some skills lose their description; the costliest "
                      f"descriptions: {names}")


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
    listed, hidden, why = [], [], []
    for skill, head in skills:
        data = head_data(skill, head)
        code = leaves_out(client, data)
        if code is not None:
            hidden.append(skill.d_tag)
            why.append(code)
        else:
            listed.append(entry(client, skill, data))
    return Catalogue(client, tuple(listed), tuple(hidden), budget_of(client, window), tuple(why))


def head_data(skill: Skill, head: str) -> dict[str, Any]:
    """The frontmatter the skill's SKILL.md is exported with ({} when it does not read)."""
    try:
        return parse_head(head_for(skill, head))[0]
    except SkillMdError:
        return {}


def entry(client: Client, skill: Skill, data: Mapping[str, Any]) -> Listed:
    """How `client` lists a skill it lists (`listing.leaves_out` is None)."""
    name = data.get("name") if isinstance(data.get("name"), str) else skill_name(skill.d_tag)
    description = listed_description(client, data)
    cap = cut_at(client, data)
    shown = description if cap is None else description[:cap]
    return Listed(skill.d_tag, name, _line(client, name, shown), len(description),
                  cap is not None)


def listing_facts(skill: Skill, head: str) -> dict[str, list[int]]:
    """How each client lists the skill, as `[line length, description length]` by client
    id (a client that leaves it out has none): kept on the skill's row by every write, so
    the editor's Problems tab sums the other skills' lines without reading their heads."""
    data = head_data(skill, head)
    facts = {}
    for client in CLIENTS.values():
        if leaves_out(client, data) is None:
            listed = entry(client, skill, data)
            facts[client.id] = [len(listed.line), listed.description]
    return facts


def overflows(skills: Sequence[tuple[str, Mapping[str, Sequence[int]]]],
              clients: Sequence[str], window: int) -> list[Diagnostic]:
    """The `catalogue-overflow` problems of the `clients` listing `skills` (`(d_tag,
    listing_facts)` in adoption order) in a context window of `window` tokens."""
    problems = []
    for client_id in clients:
        client = CLIENTS.get(client_id)
        if client is None:
            continue
        entries = [(d_tag, facts[client_id][0], facts[client_id][1])
                   for d_tag, facts in skills if client_id in facts]
        problem = overflow(client, budget_of(client, window), entries)
        if problem is not None:
            problems.append(problem)
    return problems


def _line(client: Client, name: str, description: str) -> str:
    """One skill's line as the client writes it (Codex adds the file's path)."""
    if client.id == "codex":
        return f"- {name}: {description} (file: .agents/skills/{name}/SKILL.md)\n"
    return f"- {name}: {description}\n"
