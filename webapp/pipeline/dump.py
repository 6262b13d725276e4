"""A workspace as a `skill-workspace/1` or `/2` bundle dict: the inverse of `load_bundle`.

One item of each bundle section as its JSON dict: the store and the web forms use these
too, so the shape of an item is written in one place.
"""

from __future__ import annotations

from typing import Any

from .folders import dump_folder
from .untrusted import dumps_json
from .workspace import BUNDLE_FORMAT, FOLDERS_FORMAT, Scenario, Skill, Tool, Variable, Workspace


def dump_bundle(workspace: Workspace) -> dict[str, Any]:
    """Return the bundle dict of `workspace`; every key is written, defaults included, but
    those added since bundles were first published (`builtin_tests` when true, a
    scenario's empty `expect`): a workspace that uses none has the text, and so the
    digest, it had before they existed. A workspace whose skills' folders hold more than
    their text (`Workspace.folders`) is a `skill-workspace/2` bundle, every skill with its
    folder's keys (`folders.dump_folder`); one without is the `/1` bundle it was."""
    agent = workspace.agent
    settings = {
        "name": agent.name,
        "title": agent.title,
        "message_mode": agent.message_mode,
        "max_array_items": agent.max_array_items,
        "history_labels": dict(agent.history_labels),
        "model": agent.model,
        "context_window": agent.context_window,
    }
    folders = workspace.folders_by_tag
    with_folders = any(not folder.empty for folder in workspace.folders)
    skills = ([{**dump_skill(s), **dump_folder(folders.get(s.d_tag))} for s in workspace.skills]
              if with_folders else [dump_skill(s) for s in workspace.skills])
    return {
        "format": FOLDERS_FORMAT if with_folders else BUNDLE_FORMAT,
        "agent": settings if agent.builtin_tests else {**settings, "builtin_tests": False},
        "skills": skills,
        "tools": [dump_tool(t) for t in workspace.tools],
        "variables": [dump_variable(v) for v in workspace.variables],
        "scenarios": [dump_scenario(sc) for sc in workspace.scenarios],
    }


def bundle_text(bundle: dict[str, Any]) -> str:
    """A bundle dict as the text of a bundle file: 2-space indented JSON, non-ASCII kept,
    numbers exactly as they were written, ending with a newline."""
    return dumps_json(bundle, indent=2) + "\n"


def dump_skill(s: Skill) -> dict[str, Any]:
    return {"d_tag": s.d_tag, "name": s.name, "description": s.description, "layer": s.layer,
            "triggers": list(s.triggers), "enabled": s.enabled, "content": s.content}


def dump_tool(t: Tool) -> dict[str, Any]:
    return {"name": t.name, "description": t.description, "result": t.result,
            "results_by_args": [{"args": r.args, "result": r.result} for r in t.results_by_args]}


def dump_variable(v: Variable) -> dict[str, Any]:
    return {"name": v.name, "tool": v.tool, "args": v.args, "result_field": v.result_field,
            "path": v.path, "format": v.format, "limit": v.limit}


def dump_scenario(sc: Scenario) -> dict[str, Any]:
    """A scenario as its bundle section writes it; `expect` only when it has tests, so a
    bundle without any is the same text as before tests existed."""
    dumped = {"name": sc.name, "trigger": sc.trigger, "message": sc.message,
              "history": [{"role": h.role, "content": h.content, "created_at": h.created_at}
                          for h in sc.history],
              "event": sc.event, "provider": sc.provider}
    return {**dumped, "expect": list(sc.expect)} if sc.expect else dumped
