"""What the catalogue page shows: each target client's listing of the agent's skills, its
size against the client's budget, and the problem when it overflows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from webapp.agentskills import CLIENTS, Catalogue, catalogue
from webapp.pipeline import Diagnostic, Skill


@dataclass(frozen=True, slots=True)
class CataloguePage:
    """The catalogues of an agent's target clients, in a context window of `window` tokens
    (the agent's, unless the page asked for another)."""

    window: int
    catalogues: list[Catalogue]

    @property
    def problems(self) -> list[Diagnostic]:
        return [p for c in self.catalogues if (p := c.problem()) is not None]


def catalogue_page(clients: Sequence[str], skills: Sequence[tuple[Skill, str]],
                   window: int) -> CataloguePage:
    """The page for the agent's `clients` (every client when it names none known)."""
    shown = [c for c in clients if c in CLIENTS] or list(CLIENTS)
    return CataloguePage(window, [catalogue(c, skills, window) for c in shown])
