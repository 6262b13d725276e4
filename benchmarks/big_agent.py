"""The pages of a big agent: 200 skills, each a 100 KB body without blank lines (a 20 MB
document), published, with one skill saved since.

`python -m benchmarks.big_agent [--profile PAGE]` prints, for each page a viewer may open
on it (Changes, both compares, the snapshot page, every step page of the explainer), the
seconds of its first GET on a server that has answered one request, of the best of a few
after, and the bytes it answers. The speed gate
(`benchmarks.gate`, "big agent" rows) times the same pages against a floor; `--profile`
prints the cProfile of one page's GET instead.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask

from webapp import store
from webapp.app import create_app
from webapp.bounds import deadlines
from webapp.schema import db

AGENT = "Big"
SKILLS = 200
BODY_CHARS = 100_000
#: The step pages of the explainer, in the pipeline's order.
STEPS = ("trigger", "order", "references", "roles", "variables", "headings", "template",
         "title", "messages", "joined", "request", "log")


def body(skill: int, chars: int = BODY_CHARS) -> str:
    """About `chars` of prose lines, no blank line, different in every skill."""
    lines = [f"# Skill {skill}"]
    size = len(lines[0])
    while size < chars:
        line = (f"Rule {len(lines)} of skill {skill}: answer the admin in plain words, "
                f"and use {{{{tool_{len(lines) % 5}}}}} when it helps.")
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


def big_bundle(name: str = AGENT, skills: int = SKILLS, body_chars: int = BODY_CHARS
               ) -> dict[str, Any]:
    """The agent as a bundle: `skills` skills of `body`, on `dm` (every other one on `cron`
    too), five tools, and two scenarios (`dm` and `cron`)."""
    return {
        "format": "skill-workspace/1", "agent": {"name": name},
        "tools": [{"name": f"tool_{i}", "result": {"success": True, "content": f"result {i}"}}
                  for i in range(5)],
        "variables": [],
        "skills": [{"d_tag": f"skill_{s}", "content": body(s, body_chars),
                    "triggers": ["dm", "cron"] if s % 2 else ["dm"]} for s in range(skills)],
        "scenarios": [{"name": "dm", "trigger": "dm", "message": "hello"},
                      {"name": "cron", "trigger": "cron"}],
    }


def add_big_agent(app: Flask, name: str = AGENT, skills: int = SKILLS,
                  body_chars: int = BODY_CHARS) -> None:
    """Import the agent, publish it as snapshot 1, and save one skill since."""
    with app.app_context():
        session = db.get_session()
        store.import_bundle(session, big_bundle(name, skills, body_chars))
        store.publish(session, name, "big agent", 0)
        row = store.get_skill(session, name, "skill_0")
        store.save_skill(session, name, "skill_0", expected_version=row.version,
                         content=row.content + "\nSaved since the snapshot.")
        session.commit()


def pages(name: str = AGENT) -> dict[str, str]:
    """Each page's name and path."""
    found = {"changes": f"/agents/{name}/changes",
             "snapshot compare": f"/agents/{name}/snapshots/compare?a=1&b=draft",
             "preview compare": f"/agents/{name}/preview/compare?a=dm&b=cron",
             "snapshot": f"/agents/{name}/snapshots/1"}
    found |= {f"step {step}": f"/agents/{name}/pipeline/{step}" for step in STEPS}
    return found


def timed_get(client: Any, path: str) -> tuple[float, int]:
    """Seconds and bytes of one GET; raises unless it answered 200."""
    start = time.perf_counter()
    response = client.get(path)
    seconds = time.perf_counter() - start
    if response.status_code != 200:
        raise RuntimeError(f"GET {path} answered {response.status_code}")
    return seconds, len(response.get_data())


def make_app(folder: Path) -> Flask:
    """An app on a throw-away SQLite database in `folder`, holding the big agent."""
    app = create_app({"DATABASE_URL": f"sqlite:///{folder / 'big.sqlite'}",
                      "SEED_DEMO": False, "SECRET_KEY": "big", "TESTING": False})
    add_big_agent(app)
    return app


def serving(client: Any, seconds: float = 30.0) -> None:
    """The app as a server is once it has answered a request: the first one (here `/`)
    starts the bounded work's first worker in the background (`deadlines.warm`), which a
    page then finds ready. Waits for it, `seconds` at most."""
    timed_get(client, "/")
    end = time.monotonic() + seconds
    while deadlines.stats().idle < 1 and time.monotonic() < end:
        time.sleep(0.05)


def measure(client: Any, runs: int, echo: Callable[[str], None] = print) -> None:
    """Each page's first GET (on a server that has answered one request: `serving`), and
    its best of `runs` after, with its bytes."""
    echo(f"{'page':<22} {'first':>8} {'best':>8} {'bytes':>10}")
    for page, path in pages().items():
        first, size = timed_get(client, path)
        best = min(timed_get(client, path)[0] for _ in range(runs))
        echo(f"{page:<22} {first:>7.2f}s {best:>7.2f}s {size:>10,}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.big_agent",
                                     description="Time a big agent's pages.")
    parser.add_argument("--runs", type=int, default=2, help="warm GETs a page (the best)")
    parser.add_argument("--profile", default="", help="a page's name: print its profile")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        client = make_app(Path(folder)).test_client()
        serving(client)
        if not args.profile:
            measure(client, args.runs)
            return
        path = pages()[args.profile]
        timed_get(client, path)  # warm, as a second viewer finds it
        profile = cProfile.Profile()
        profile.runcall(timed_get, client, path)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(45)


if __name__ == "__main__":
    main()
