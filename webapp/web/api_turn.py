"""One turn of the runtime API: a snapshot's workspace with what the runtime posted in
place of the mock data, assembled as the editor assembles it.

No request is read here (the `api` blueprint parses and validates it into an
`AssembleRequest`), so this is tested without an app. A snapshot never changes, so its
parsed workspace is kept by digest (`snapshot workspaces`): a turn costs one assembly and
no bundle parse.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from webapp.bounds.lru import LRU
from webapp.pipeline import (
    Context,
    HistoryEntry,
    LogEntry,
    LogFormatError,
    Scenario,
    Tool,
    Workspace,
    assemble,
    closest,
    excerpt,
    load_bundle,
    parse_json,
    parse_log_entry,
    value_names,
)
from webapp.tokens import count_tokens
from webapp.views.messages import Models, messages_text, request_bodies

from .api_schema import INCLUDED, AssembleRequest

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
        # A turn assembles from the skills' text: their folders' bytes are not kept here.
        workspace = _workspaces.put(digest, dataclasses.replace(
            load_bundle(parse_json(bundle())), folders=()))
    return workspace


class TurnInputs(NamedTuple):
    """What a turn assembles from: the workspace with the posted tool results, the
    scenario (the named one with the posted history and provider, else one named "" that
    holds only what was posted) and the inputs the named scenario supplied."""

    workspace: Workspace
    scenario: Scenario
    from_scenario: list[str]


def turn_inputs(workspace: Workspace, turn: AssembleRequest) -> TurnInputs:
    """The workspace and scenario a turn assembles from. A turn that names a scenario gets
    its inputs (and the mock tools' data) for what it does not post, and they are listed;
    a turn that names none has the request's inputs alone: a tool it posts no result for
    is not called (`tool-not-called`).

    Raises `TurnProblem`: a scenario, tool or value name the snapshot does not know (with
    the closest names it does), a value posted for a name a binding gives.
    """
    _check_names(workspace, turn)
    base = workspace.scenarios_by_name[turn.scenario] if turn.scenario is not None else None
    posted = {**turn.variables, **turn.tool_results}

    def given(tool: Tool) -> Tool:
        """The posted result; else the mock data a named scenario takes, or none at all."""
        if tool.name in posted:
            return dataclasses.replace(tool, result=posted[tool.name], results_by_args=())
        return tool if base is not None else dataclasses.replace(tool, called=False)

    tools = [given(tool) for tool in workspace.tools]
    known = workspace.tools_by_name
    tools += [Tool(name, result=value) for name, value in posted.items() if name not in known]
    workspace = dataclasses.replace(workspace, tools=tuple(tools))
    scenario = base or Scenario("")
    if turn.history is not None:
        scenario = dataclasses.replace(scenario, history=tuple(
            HistoryEntry(item.role, item.content, item.created_at) for item in turn.history))
    if turn.provider is not None:
        scenario = dataclasses.replace(scenario, provider=turn.provider)
    if base is None:
        return TurnInputs(workspace, scenario, [])
    supplied = {"trigger": turn.trigger is None,
                "message": turn.message is None and bool(base.message),
                "history": turn.history is None and bool(base.history),
                "event": base.event is not None,
                "provider": turn.provider is None and base.provider is not None}
    return TurnInputs(workspace, scenario, [name for name, took in supplied.items() if took] + [
        f"tool_results.{tool.name}" for tool in known.values() if tool.name not in posted])


def _check_names(workspace: Workspace, turn: AssembleRequest) -> None:
    """Refuse a name the snapshot does not know, saying which it does that is closest."""
    if turn.scenario is not None and turn.scenario not in workspace.scenarios_by_name:
        raise _unknown("scenario", "scenario", turn.scenario, workspace.scenarios_by_name)
    for name in turn.tool_results:
        if name not in workspace.tools_by_name:
            raise _unknown("tool_results", "tool", name, workspace.tools_by_name)
    if not turn.variables:
        return
    bound = workspace.variables_by_name
    taken = sorted(name for name in turn.variables if name in bound)
    if taken:
        raise TurnProblem("variables", f"{excerpt(taken[0])} is a binding of the tool "
                                       f"{excerpt(bound[taken[0]].tool)}: post the tool's "
                                       "result in tool_results instead")
    fillable = value_names(workspace)
    unknown = sorted(set(turn.variables) - set(fillable))
    if unknown:
        raise _unknown("variables", "name", unknown[0], fillable,
                       " for a value to fill (a `{{name}}` its skills write)")


def _unknown(field: str, what: str, name: str, known: Iterable[str], why: str = ""
             ) -> TurnProblem:
    close = closest(name, known)
    hint = f"; did you mean {' or '.join(excerpt(c) for c in close)}?" if close else ""
    return TurnProblem(field, f"the snapshot has no {what} {excerpt(name)}{why}{hint}")


def expected_context(workspace: Workspace, turn: AssembleRequest) -> Context:
    """What `workspace` assembles from the turn's inputs: the context `assemble_turn`
    answers with, and what a runtime's report is checked against."""
    workspace, scenario, _ = turn_inputs(workspace, turn)
    return assemble(workspace, scenario, trigger=turn.trigger, message=turn.message)


def assemble_turn(workspace: Workspace, turn: AssembleRequest, models: Models
                  ) -> dict[str, Any]:
    """The fields of an `AssembleAnswer` but the snapshot's: what the editor's preview
    shows for these inputs (the forms of the context `turn.include` asks for, of the
    messages, the document, the provider's request body and the log entry; every
    diagnostic; token counts). Each form is the whole context again: an answer carries
    the context as often as it is asked for, once by default."""
    workspace, scenario, from_scenario = turn_inputs(workspace, turn)
    context = assemble(workspace, scenario, trigger=turn.trigger, message=turn.message)
    document = count_tokens(context.document)
    answer: dict[str, Any] = {
        "scenario": context.scenario, "trigger": context.trigger,
        "from_scenario": from_scenario}
    for form in INCLUDED:
        if form in turn.include:
            answer[form] = _form(form, context, scenario.provider, models)
    return answer | {
        "diagnostics": [diagnostic.to_dict() for diagnostic in context.diagnostics],
        "tokens": {"document": document.n, "exact": document.exact,
                   "messages": [count_tokens(m["content"]).n for m in context.messages]},
    }


def _form(form: str, context: Context, provider: str | None, models: Models) -> Any:
    """One form of the context an answer may carry (`api_schema.INCLUDED`)."""
    if form == "request_body":
        bodies = {body.slug: body.value for body in request_bodies(context.messages, models)}
        return bodies.get(provider or "openai", bodies["openai"])
    return {"messages": context.messages, "document": context.document,
            "log_entry": context.log_entry}[form]


class Sent(NamedTuple):
    """What a runtime reports it sent: the messages, the document they came from, and the
    header of its log entry (None when it posted messages)."""

    messages: list[dict[str, str]]
    document: str
    header: LogEntry | None


def sent_messages(log_entry: str | None, messages: list[dict[str, str]] | None) -> Sent:
    """What a runtime reports it sent: its log entry read back, else the messages laid out
    as text. Raises `TurnProblem`: a log entry that is not exactly one entry of the
    context log's format."""
    if log_entry is None:
        sent = [{"role": m["role"], "content": m["content"]} for m in messages or []]
        return Sent(sent, messages_text(sent), None)
    try:
        entry = parse_log_entry(log_entry)
    except LogFormatError as exc:
        raise TurnProblem("log_entry", str(exc)) from None
    return Sent(entry.messages, log_entry.partition("\n")[2], entry)


def entry_fields(report: AssembleRequest, sent: Sent, expected: Context | None
                 ) -> dict[str, Any]:
    """The scenario, trigger and problems of a runtime's log entry: what the report posts,
    else the check's assembly (its trigger and diagnostics), else what the entry's header
    names (its scenario, trigger and problem counts)."""
    header = sent.header
    trigger = report.trigger or (expected.trigger if expected else "") or (
        header.trigger if header else "")
    diagnostics, counts = (([d.to_dict() for d in expected.diagnostics], expected.counts())
                           if expected else ([], header.counts if header else {}))
    return {"scenario": report.scenario or (header.scenario if header else None),
            "trigger": trigger, "diagnostics": diagnostics, "counts": counts}


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
