"""One turn of the runtime API: a snapshot's workspace with what the runtime posted in
place of the mock data, assembled as the editor assembles it.

No request is read here (the `api` blueprint parses and validates it into an
`AssembleRequest`), so this is tested without an app. A snapshot never changes, so its
parsed workspace is kept by digest (`snapshot workspaces`): a turn costs one assembly and
no bundle parse.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from webapp.lru import LRU
from webapp.pipeline import (
    HistoryEntry,
    LogFormatError,
    Scenario,
    Tool,
    Workspace,
    assemble,
    load_bundle,
    parse_json,
    parse_log_entry,
)
from webapp.tokens import count_tokens
from webapp.views.messages import Models, messages_text, request_bodies

from .api_schema import AssembleRequest

#: Parsed workspaces of snapshots, by digest (the sha256 of the bundle they were read
#: from, so an entry can never be stale). A demo-size workspace is tens of kilobytes.
_workspaces: LRU[str, Workspace] = LRU("snapshot workspaces", 32)


class TurnProblem(ValueError):
    """What the runtime posted does not fit the snapshot: `field` and why (a 422)."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


def snapshot_workspace(digest: str, bundle: Callable[[], str]) -> Workspace:
    """The workspace of the snapshot whose canonical text (sha256 `digest`) `bundle()`
    reads: only when it is not kept already."""
    workspace = _workspaces.get(digest)
    if workspace is None:
        workspace = _workspaces.put(digest, load_bundle(parse_json(bundle())))
    return workspace


def turn_inputs(workspace: Workspace, turn: AssembleRequest
                ) -> tuple[Workspace, Scenario | None]:
    """The workspace with the posted tool results and values in place of the mock tools'
    data, and the scenario (named, else the first) with the posted history and provider.

    Raises `TurnProblem`: no such scenario; a value posted for a name a binding gives.
    """
    names = [scenario.name for scenario in workspace.scenarios]
    if turn.scenario is not None and turn.scenario not in names:
        raise TurnProblem("scenario", f"no scenario named {turn.scenario[:200]!r} in this "
                                      "snapshot")
    bound = {variable.name for variable in workspace.variables}
    taken = sorted(name for name in turn.variables if name in bound)
    if taken:
        raise TurnProblem("variables", f"{taken[0][:200]!r} is a binding of a tool: post the "
                                       "tool's result in tool_results instead")
    posted = {**turn.variables, **turn.tool_results}
    tools = [dataclasses.replace(tool, result=posted[tool.name], results_by_args=())
             if tool.name in posted else tool for tool in workspace.tools]
    known = {tool.name for tool in workspace.tools}
    tools += [Tool(name, result=value) for name, value in posted.items() if name not in known]
    workspace = dataclasses.replace(workspace, tools=tuple(tools))
    base = next((s for s in workspace.scenarios if s.name == turn.scenario),
                workspace.scenarios[0] if workspace.scenarios else None)
    if base is None and turn.history is None and turn.provider is None:
        return workspace, None
    scenario = base or Scenario("(posted)")
    if turn.history is not None:
        scenario = dataclasses.replace(scenario, history=tuple(
            HistoryEntry(item.role, item.content, item.created_at) for item in turn.history))
    if turn.provider is not None:
        scenario = dataclasses.replace(scenario, provider=turn.provider)
    return workspace, scenario


def assemble_turn(workspace: Workspace, turn: AssembleRequest, models: Models
                  ) -> dict[str, Any]:
    """The fields of an `AssembleAnswer` but the snapshot's: what the editor's preview
    shows for these inputs (document, messages, the provider's request body, the log
    entry, every diagnostic, token counts)."""
    workspace, scenario = turn_inputs(workspace, turn)
    context = assemble(workspace, scenario, trigger=turn.trigger, message=turn.message)
    provider = (scenario.provider if scenario else None) or "openai"
    bodies = {body.slug: body.value for body in request_bodies(context.messages, models)}
    document = count_tokens(context.document)
    return {
        "scenario": context.scenario, "trigger": context.trigger,
        "document": context.document, "messages": context.messages,
        "request_body": bodies.get(provider, bodies["openai"]),
        "log_entry": context.log_entry,
        "diagnostics": [diagnostic.to_dict() for diagnostic in context.diagnostics],
        "tokens": {"document": document.n, "exact": document.exact,
                   "messages": [count_tokens(m["content"]).n for m in context.messages]},
    }


def sent_messages(log_entry: str | None, messages: list[dict[str, str]] | None
                  ) -> tuple[list[dict[str, str]], str]:
    """The messages a runtime reports it sent, and the document they came from (the log
    entry's, else the messages laid out as text). Raises `TurnProblem`: a log entry that
    is not exactly one entry of the context log's format."""
    if log_entry is None:
        sent = [{"role": m["role"], "content": m["content"]} for m in messages or []]
        return sent, messages_text(sent)
    try:
        entry = parse_log_entry(log_entry)
    except LogFormatError as exc:
        raise TurnProblem("log_entry", str(exc)) from None
    return entry.messages, log_entry.partition("\n")[2]


def runtime_check(sent: list[dict[str, str]], expected: list[dict[str, str]],
                  number: int | None, digest: str) -> dict[str, Any]:
    """Whether what a runtime sent is what the snapshot assembles from the same inputs:
    the verdict, the snapshot and, when they differ, the expected messages."""
    def pairs(messages: list[dict[str, str]]) -> list[tuple[str, str]]:
        return [(m["role"], m["content"]) for m in messages]

    same = pairs(sent) == pairs(expected)
    what = f"snapshot {number}" if number is not None else "the draft"
    return {"verdict": "matches" if same else "differs", "snapshot": number, "digest": digest,
            "note": f"{'matches' if same else 'differs from'} what {what} assembles from the "
                    "same inputs",
            "expected": None if same else pairs(expected)}


#: The check of a report that names no snapshot.
UNCHECKED = {"verdict": "unchecked", "snapshot": None, "digest": None, "expected": None,
             "note": "not checked: the report names no snapshot (post `snapshot` and the "
                     "turn's inputs to have it checked)"}
