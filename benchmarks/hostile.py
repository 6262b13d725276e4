"""The hostile corpus of output budgets, and the time of the slowest route over it.

Shapes whose assembly and pages would be huge without the budgets of
`webapp.pipeline.budgets`: a value written 200 times, 40,000 unknown names, a tool with
30,000 results by args, an exponential chain of references (each saved as an agent of its
own), and forms that ask for as much. `tests/hostile/test_answer_budget.py` drives every
route over them and bounds the answers' size; the time each takes is a figure of the
worst-case table (`hostile_rows`), never an assertion.
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path
from typing import Any

from webapp.pipeline import Agent, Scenario, Skill, Tool, ToolResult, Variable, Workspace

Row = tuple[str, str, str]
BIG = "m" * 100_000
#: A token the forms are posted with (set in the session first).
TOKEN = "hostile-csrf-token"

#: Form fields that ask for a lot: a value written hundreds of times, unknown names by the
#: thousand, results by args by the thousand, references by the thousand.
FORMS: dict[str, dict[str, str]] = {
    "value 200 times": {"content": "{{message_current}}\n" * 200, "message": BIG},
    "unknown names": {"content": "\n".join(f"{{{{u{i}}}}}" for i in range(20_000))},
    "results by args": {"results_by_args": "[" + ",".join(
        f'{{"args":{i},"result":"r"}}' for i in range(8_000)) + "]", "result": '"r"'},
    "references": {"content": "{{l0}}\n" * 2_000},
}


def shapes() -> dict[str, Workspace]:
    """One workspace per shape, its agent named after it."""
    chain = tuple(Skill(f"l{i}", "\n".join([f"{{{{l{i + 1}}}}}" if i < 6 else "leaf text"] * 10),
                        layer=2) for i in range(7))
    scenarios = (Scenario("dm", message=BIG),)
    return {
        "values": Workspace(
            agent=Agent(name="values"),
            skills=(Skill("values", "{{big}}\n" * 200, triggers=("dm",)),
                    Skill("message", "{{message_current}}\n" * 200, triggers=("dm",))),
            tools=(Tool("big", result={"success": True, "content": BIG}),),
            variables=(Variable("big", tool="big"),), scenarios=scenarios),
        "unknown": Workspace(
            agent=Agent(name="unknown"),
            skills=(Skill("unknown", "\n".join(f"{{{{u{i}}}}}" for i in range(40_000)),
                          triggers=("dm",)),), scenarios=scenarios),
        "flood": Workspace(
            agent=Agent(name="flood"), skills=(Skill("flood", "{{flood}}", triggers=("dm",)),),
            tools=(Tool("flood", result="r", results_by_args=tuple(
                ToolResult(i, "r") for i in range(30_000))),), scenarios=scenarios),
        "chain": Workspace(
            agent=Agent(name="chain"),
            skills=(Skill("top", "{{l0}}\n" * 10, triggers=("dm",)), *chain),
            scenarios=scenarios),
    }


def path_values(workspace: Workspace) -> dict[str, str]:
    """The path arguments of `tests/web/routes.route_url` for a shape's agent (no log
    entry or snapshot: their pages answer 404)."""
    return {"agent": workspace.agent.name, "d_tag": workspace.skills[0].d_tag, "version": "1",
            "number": "1", "entry_id": "1",
            "tool": workspace.tools[0].name if workspace.tools else "x",
            "variable": workspace.variables[0].name if workspace.variables else "x",
            "scenario": "dm", "username": "nobody", "item_id": "1", "ref": "production",
            "key_id": "1", "webhook_id": "1", "message_id": "1", "step": "variables",
            "path": "SKILL.md", "sha256": "0" * 64}


def _fill(rule: Any, values: dict[str, str]) -> str:
    """The rule's path with its arguments from `values` (as the tests' `route_url`)."""
    kind = {"tools": "tool", "variables": "variable", "scenarios": "scenario"}.get(
        rule.endpoint.split(".")[0], "tool")
    return re.sub(r"<(?:\w+:)?(\w+)>",
                  lambda m: values[kind if m[1] == "name" else m[1]], rule.rule)


def hostile_rows(top: int = 8) -> list[Row]:
    """(figure, measured, target) rows: the `top` slowest routes over the corpus, each
    with its slowest shape (GET, page and fragment, over the saved shapes; POST, as a
    fragment, with each form to the Simon demo agent)."""
    from webapp import store
    from webapp.schema import db

    from .web import _app

    times: dict[str, tuple[float, str]] = {}

    def timed(route: str, shape: str, call: Any) -> None:
        start = time.perf_counter()
        call()
        elapsed = time.perf_counter() - start
        if elapsed > times.get(route, (0.0, ""))[0]:
            times[route] = (elapsed, shape)

    with tempfile.TemporaryDirectory() as folder:
        app = _app(Path(folder) / "hostile.sqlite", seed_demo=True)
        client = app.test_client()
        with app.app_context():
            for workspace in shapes().values():
                store.import_bundle(db.get_session(), workspace)
        rules = [rule for rule in app.url_map.iter_rules() if rule.endpoint != "static"]
        for name, workspace in shapes().items():
            values = path_values(workspace)
            for rule in (r for r in rules if "GET" in r.methods):
                url = _fill(rule, values)
                for headers in ({}, {"HX-Request": "true"}):
                    timed(f"GET {rule.rule}", name,
                          lambda url=url, headers=headers: client.get(url, headers=headers))
        simon = path_values(Workspace(agent=Agent(name="Simon"), skills=(Skill("identity", ""),)))
        simon.update(tool="agent_identity", variable="agent_npub",
                     scenario="admin asks about mentions")
        removes = ("/delete", "/purge", "/logout")
        for label, form in FORMS.items():
            for rule in sorted((r for r in rules if "POST" in r.methods),
                               key=lambda r: r.rule.endswith(removes)):
                if rule.rule.endswith(removes):
                    continue  # the demo agent must stay for the next form
                url = _fill(rule, simon)
                with client.session_transaction() as session:
                    session["csrf_token"] = TOKEN
                timed(f"POST {rule.rule}", label, lambda url=url, form=form: client.post(
                    url, data=form | {"csrf_token": TOKEN}, headers={"HX-Request": "true"}))
    slowest = sorted(times.items(), key=lambda item: -item[1][0])[:top]
    return [(f"worst case: {route} (slowest shape: {shape})", f"{seconds * 1000:.0f} ms",
             "<= 1000 ms")
            for route, (seconds, shape) in slowest]
