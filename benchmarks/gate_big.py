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
from webapp.pipeline.assemble import plain_skill_shape, run_plain_skill
from webapp.schema import db
from webapp.store import test_runs

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


def changes_after_a_save(bench) -> Callable[[int], None]:
    """One skill saved (a line added, new each run), then the Changes page: its context
    tests run again, the built-in injection check with hostile tool data in every value
    among them, which must run the saved skill alone (`plain_skill_shape`), not all 200."""
    get = _get(bench, big_agent.pages(AGENT)["changes"])

    def changed(run: int) -> None:
        with bench.app.app_context():
            session = db.get_session()
            row = store.get_skill(session, AGENT, "skill_1")
            store.save_skill(session, AGENT, "skill_1", expected_version=row.version,
                             content=row.content + f"\nRun {run} of the gate.")
            session.commit()
        get(run)
    return changed


#: The agent whose skills are the size `python -m benchmarks.big_agent` times, for the
#: counted row: at 100 KB a skill, its runs with hostile data (eight lines a `{{name}}`)
#: outgrow the memo of real runs, where at 25 KB they fit.
FULL_AGENT = "BigFull"


def skills_run_after_a_save(bench, skills: int = big_agent.SKILLS,
                            body_chars: int = big_agent.BODY_CHARS) -> Callable[[], int]:
    """The skills run (each memo's misses: real runs and hostile shapes) by one save and
    the Changes page after it, on the full-size agent, its Changes page seen once before."""
    def count() -> int:
        big_agent.add_big_agent(bench.app, FULL_AGENT, skills, body_chars)
        get = _get(bench, big_agent.pages(FULL_AGENT)["changes"])
        get(0)
        before = run_plain_skill.cache_info().misses + plain_skill_shape.cache_info().misses
        with bench.app.app_context():
            session = db.get_session()
            row = store.get_skill(session, FULL_AGENT, "skill_1")
            store.save_skill(session, FULL_AGENT, "skill_1", expected_version=row.version,
                             content=row.content + "\nSaved by the gate.")
            session.commit()
        get(1)
        after = run_plain_skill.cache_info().misses + plain_skill_shape.cache_info().misses
        return after - before
    return count


def shapes_made_by_a_new_process(bench) -> Callable[[], int]:
    """The hostile shapes the Changes page makes in a process just started (this one, its
    kept test runs and its shapes dropped) when another process showed the page before:
    none, as the run that process made is read from the database (`store.test_runs`)."""
    get = _get(bench, big_agent.pages(AGENT)["changes"])

    def count() -> int:
        get(0)  # another process's view: its run kept in the database
        test_runs._runs.clear()  # this process's memory only: the database keeps its runs
        plain_skill_shape.cache_clear()
        before = plain_skill_shape.cache_info().misses
        get(1)
        return plain_skill_shape.cache_info().misses - before
    return count


#: The agent whose every skill was reworded since it was published: its documents differ
#: on every rule's line, so its Changes page diffs two documents that differ throughout.
REWORDED = "BigReworded"


def add_reworded(bench, skills: int, body_chars: int) -> None:
    """The big agent as `REWORDED`: published, then every rule of every skill reworded."""
    big_agent.add_big_agent(bench.app, REWORDED, skills, body_chars)
    with bench.app.app_context():
        session = db.get_session()
        for skill in range(skills):
            row = store.get_skill(session, REWORDED, f"skill_{skill}")
            store.save_skill(session, REWORDED, row.d_tag, expected_version=row.version,
                             content=row.content.replace("plain words", "short words"))
        session.commit()


def read_and_assemble(bench, *sides: str, agent: str = AGENT) -> Callable[[int], None]:
    """Each side (`draft` or a snapshot's number) of `agent` read and each of its
    scenarios assembled: what a page of the agent cannot avoid."""
    def floor(_: int) -> None:
        with bench.app.app_context():
            session = db.get_session()
            for ref in sides:
                workspace = store.read_side(session, agent, ref).workspace
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
    found = [(f"big agent: {page}, {size}",
              _get(bench, pages[page]), floor,
              "read + assemble" + (" both sides" if floor is both else ""), budget(page))
             for page, floor in chosen.items()]
    found.append((f"big agent: changes after a save, {size}", changes_after_a_save(bench),
                  both, "read + assemble both sides", budget("changes after a save")))
    found.append((f"big agent: changes of a draft reworded throughout, {size}",
                  _get(bench, big_agent.pages(REWORDED)["changes"]),
                  read_and_assemble(bench, "1", "draft", agent=REWORDED),
                  "read + assemble both sides", budget("changes of a draft reworded throughout")))
    return found
