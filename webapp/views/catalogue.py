"""What the catalogue page shows: each target client's listing of the agent's skills, its
size against the client's budget, the problem when it overflows, and the costliest
descriptions, one table with a column per client."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from webapp.agentskills import CLIENTS, Catalogue, Listed, catalogue
from webapp.pipeline import Diagnostic, Skill


@dataclass(frozen=True, slots=True)
class CostRow:
    """One skill among the costliest descriptions: how each client lists it, in the order
    of the page's catalogues (None where the client does not list it)."""

    d_tag: str
    entries: tuple[Listed | None, ...]

    @property
    def most(self) -> int:
        """The longest of its descriptions, the table's order."""
        return max(e.description for e in self.entries if e is not None)


@dataclass(frozen=True, slots=True)
class CataloguePage:
    """The catalogues of an agent's target clients, in a context window of `window` tokens
    (the agent's, unless the page asked for another)."""

    window: int
    catalogues: list[Catalogue]

    @property
    def problems(self) -> list[Diagnostic]:
        return [p for c in self.catalogues if (p := c.problem()) is not None]

    @property
    def costliest(self) -> list[CostRow]:
        """The skills among any client's costliest descriptions, longest first, each with
        a cell per client: the clients mostly agree, so the table is shown once."""
        listed = [{e.d_tag: e for e in c.listed} for c in self.catalogues]
        picked = {e.d_tag for c in self.catalogues for e in c.costliest}
        rows = [CostRow(d_tag, tuple(by_tag.get(d_tag) for by_tag in listed))
                for d_tag in picked]
        return sorted(rows, key=lambda row: (-row.most, row.d_tag))


def catalogue_page(clients: Sequence[str], skills: Sequence[tuple[Skill, str]],
                   window: int) -> CataloguePage:
    """The page for the agent's `clients` (every client when it names none known)."""
    shown = [c for c in clients if c in CLIENTS] or list(CLIENTS)
    return CataloguePage(window, [catalogue(c, skills, window) for c in shown])
