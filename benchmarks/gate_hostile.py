"""The speed gate's rows for the hostile classes (`docs/bounds.md`): the work an attacker's
input may cost, each against the floor of the same request on ordinary input, so that a
bound removed (a pattern limit, a token estimate, a relay budget) shows as a ratio, not as
a stalled worker in production.

- **A context test's pattern**: a viewer's Changes page of an agent whose scenario has a
  200 KB one-line document and three tests of the costliest pattern a save allows, against
  the same page with literal patterns.
- **The skills-zip import preview**: 32 skills whose SKILL.md is one 200 KB line, against
  the same zip of ordinary prose (the preview counts every body's tokens).
- **Nostr import**: the peak memory of a fetch from four relays that each send events of
  tens of thousands of one-element tags, in MiB (counted: memory does not depend on the
  machine's speed).
"""

from __future__ import annotations

import io
import tracemalloc
import zipfile
from collections.abc import Callable

from webapp import store
from webapp.outbound import relays
from webapp.pipeline.patterns import pattern_problem
from webapp.schema import db

LINE_CHARS = 200_000
ZIP_SKILLS = 32
#: One-element tags of each flooding event: about a megabyte, the largest message a relay
#: may send (the assessment's event had 140,000).
FLOOD_TAGS = 140_000
#: A pattern RE2 compiles to just under the program limit a save allows
#: (`pipeline.patterns.PATTERN_PROGRAM`): the costliest a test may search with.
COSTLY_PATTERN = ".{0,110}Q"


def _agent_with_tests(name: str, pattern: str) -> dict:
    """A bundle: one skill of one long line, a scenario of three tests of `pattern`."""
    return {"format": "skill-workspace/1", "agent": {"name": name}, "tools": [],
            "variables": [],
            "skills": [{"d_tag": "long", "triggers": ["dm"],
                        "content": "word" * (LINE_CHARS // 4) + "\n"}],
            "scenarios": [{"name": "long line", "trigger": "dm",
                           "expect": [{"regex": pattern} for _ in range(3)]}]}


def pattern_rows(bench) -> tuple[Callable[[int], object], Callable[[int], object]]:
    """(hostile, floor) GETs of the Changes page for the two agents."""
    problem = pattern_problem(COSTLY_PATTERN)
    if problem is not None:
        raise RuntimeError(f"the row's pattern {problem}: make it one a save accepts")
    with bench.app.app_context():
        session = db.get_session()
        for name, pattern in (("Patterns", COSTLY_PATTERN), ("Literals", "wordQ")):
            store.import_bundle(session, _agent_with_tests(name, pattern))
        session.commit()

    def page(agent: str) -> Callable[[int], object]:
        def get(_: int) -> None:
            response = bench.client.get(f"/agents/{agent}/changes")
            if response.status_code != 200:
                raise RuntimeError(f"the Changes page answered {response.status_code}")
        return get

    return page("Patterns"), page("Literals")


def _skills_zip(body: str) -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(ZIP_SKILLS):
            archive.writestr(f"skill-{i}/SKILL.md",
                             f"---\nname: skill-{i}\ndescription: Skill {i}.\n---\n{body}\n")
    return data.getvalue()


def zip_rows(bench) -> tuple[Callable[[int], object], Callable[[int], object]]:
    """(hostile, floor) import previews: one-line bodies, and prose of the same size."""
    def preview(archive: bytes) -> Callable[[int], object]:
        def post(run: int) -> None:
            form = {"agent": f"Zip{run}", "csrf_token": bench.csrf,
                    "skill_file": (io.BytesIO(archive), "skills.zip")}
            response = bench.client.post("/transfer/skills/preview", data=form,
                                         content_type="multipart/form-data")
            if response.status_code != 200:
                raise RuntimeError(f"the import preview answered {response.status_code}")
        return post

    return (preview(_skills_zip("x" * LINE_CHARS)),
            preview(_skills_zip(("A sentence of prose. " * 8 + "\n") * (LINE_CHARS // 170))))


def relay_memory(timeout: float = 10) -> int:
    """MiB at the peak of a fetch from four relays flooding it with many-tag events, each
    relay given `timeout` seconds."""
    from tests.support.relay import Script, scripted_relay  # a relay started for the row

    tags = ",".join(['["t"]'] * FLOOD_TAGS)
    flood = f'["EVENT", "s", {{"kind": 1, "tags": [{tags}], "content": ""}}]'
    scripts = [Script(raw=[flood] * 10) for _ in range(4)]
    with scripted_relay(scripts[0]) as a, scripted_relay(scripts[1]) as b, \
            scripted_relay(scripts[2]) as c, scripted_relay(scripts[3]) as d:
        tracemalloc.start()
        try:
            relays.fetch([a, b, c, d], [{"kinds": [1]}], limit=20, timeout=timeout)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    return peak // (1024 * 1024)
