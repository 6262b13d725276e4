"""The speed gate's rows for a big agent's pages: 200 skills of `BODY_CHARS` each, without
blank lines (`benchmarks.big_agent`), published, one skill saved since. Each page a viewer
may open on it is timed against the work it cannot avoid (reading the agent and
assembling it; for a comparison, both sides), so that a pass over the whole document
brought back (every step explained for one step's page, every skill's tokens counted,
a snapshot parsed on every view, the built-in checks run on every view) shows as a ratio.

The bodies are a quarter of the 100 KB `python -m benchmarks.big_agent` times (a 5 MB
document, past the 4 MiB a token count counts exactly): enough to show a whole pass,
small enough for the gate's seven runs a row.
"""

from __future__ import annotations

from collections.abc import Callable

from webapp import store
from webapp.pipeline import assemble
from webapp.schema import db

from . import big_agent

AGENT = "BigGate"
BODY_CHARS = 25_000
#: The step pages timed: one of the skills' stages, the messages (the costliest of the
#: layout's) and the first.
STEPS = ("trigger", "variables", "messages")


def add_agent(bench, skills: int = big_agent.SKILLS, body_chars: int = BODY_CHARS) -> str:
    """The big agent in the bench's database; what the rows call it."""
    big_agent.add_big_agent(bench.app, AGENT, skills, body_chars)
    return f"{skills} skills of {body_chars / 1000:g} KB"


def _get(bench, path: str) -> Callable[[int], None]:
    def get(_: int) -> None:
        response = bench.client.get(path)
        if response.status_code != 200:
            raise RuntimeError(f"GET {path} answered {response.status_code}")
    return get


def read_and_assemble(bench, *sides: str) -> Callable[[int], None]:
    """Each side (`draft` or a snapshot's number) read and each of its scenarios
    assembled: what a page of the agent cannot avoid."""
    def floor(_: int) -> None:
        with bench.app.app_context():
            session = db.get_session()
            for ref in sides:
                workspace = store.read_side(session, AGENT, ref).workspace
                for scenario in workspace.scenarios:
                    assemble(workspace, scenario)
    return floor


def rows(bench, size: str, budget: Callable[[str], float]
         ) -> list[tuple[str, Callable, Callable, str, float]]:
    """(name, page, floor, floor's name, budget) of each page (`budget(page)`) of the agent
    `add_agent` added (`size`: what it said)."""
    pages = big_agent.pages(AGENT)
    both = read_and_assemble(bench, "1", "draft")
    draft = read_and_assemble(bench, "draft")
    chosen = {"changes": both, "snapshot compare": both, "preview compare": draft,
              "snapshot": read_and_assemble(bench, "1")}
    chosen |= {f"step {step}": draft for step in STEPS}
    return [(f"big agent: {page}, {size}",
             _get(bench, pages[page]), floor,
             "read + assemble" + (" both sides" if floor is both else ""), budget(page))
            for page, floor in chosen.items()]
