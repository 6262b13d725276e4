"""An agent's MCP server, built on the official SDK's low-level `Server`: the handlers
read the snapshot a label gives (`Published`) each time they are asked, so a label moved
is served by the next request.

Every input is bounded before it reaches the pipeline: a prompt's arguments are checked
as the runtime API checks an `/assemble` body (`AssembleRequest`, one owner of the limits),
an unknown URI or prompt name is an `INVALID_PARAMS` error naming the closest ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from mcp import types
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import ValidationError as ModelError
from sqlalchemy.orm import Session

from webapp import __version__, store
from webapp.agentskills import SkillFolder
from webapp.pipeline import Workspace, closest, excerpt
from webapp.schema import models
from webapp.views.messages import Models
from webapp.web.api_schema import LONGEST_TEXT, MOST_ENTRIES, AssembleRequest
from webapp.web.api_turn import TurnProblem, assemble_turn, snapshot_workspace

from . import catalogue

#: The name the server gives itself in `initialize` (`serverInfo.name`).
NAME = "skill-editor"
Context = ServerRequestContext[Any]
#: Most prompt arguments a request may send: a message and the API's most values.
MOST_ARGUMENTS = MOST_ENTRIES + 1


@dataclass(frozen=True)
class Published:
    """What one server serves: the snapshot `label` gives of `agent`, read in a session
    `session()` opens, assembled for the models `models` names."""

    agent: str
    label: str
    session: Callable[[], AbstractContextManager[Session]]
    models: Models

    def snapshot(self, session: Session) -> models.PublishedSnapshot | None:
        """The labelled snapshot, None while the label points nowhere; `NotFound` when
        the agent is gone."""
        return store.labelled_or_none(session, self.agent, self.label)

    def entries(self, skill: str | None = None) -> list[catalogue.Entry]:
        """The resources of every skill, or of the one whose folder name is `skill`."""
        with self.session() as session:
            return catalogue.entries(self._folders(session), skill)

    def _folders(self, session: Session) -> list[SkillFolder]:
        snapshot = self.snapshot(session)
        return [] if snapshot is None else store.published_folders(session, snapshot)

    def workspace(self) -> tuple[Workspace | None, int, str]:
        """The snapshot's workspace (None: no snapshot), its number and digest."""
        with self.session() as session:
            snapshot = self.snapshot(session)
            if snapshot is None:
                return None, 0, ""
            bundle = snapshot.bundle
            return snapshot_workspace(snapshot.digest, lambda: bundle), snapshot.number, \
                snapshot.digest


def build_server(published: Published, scopes: tuple[str, ...] = ("read", "assemble"),
                 watch: Watching | None = None, *, kept: bool = False) -> Server[Any]:
    """The SDK server of `published`: its skills as resources (with the `read` scope),
    its scenarios as prompts with completion (with `assemble`); the Skills-over-MCP
    extension declared in its capabilities. With `watch` (a `live.Watch`), a 2026-era
    client may listen for changes (`subscriptions/listen`, resources subscribed to
    there); on a session that is `kept` (stdio), a handshake-era client is told of them
    and may subscribe to resources (`resources/subscribe`)."""
    handlers: dict[str, Any] = {}
    if "read" in scopes:
        handlers.update(on_list_resources=_list_resources(published),
                        on_read_resource=_read_resource(published))
    if "assemble" in scopes:
        handlers.update(on_list_prompts=_list_prompts(published),
                        on_get_prompt=_get_prompt(published),
                        on_completion=_complete(published))
    server = _LiveServer(
        NAME, version=__version__, title=f"{published.agent} ({published.label})",
        instructions=f"The skills and scenarios of the agent {published.agent!r} as its "
                     f"snapshot labelled {published.label!r} publishes them.", **handlers)
    server.extensions = {catalogue.SKILLS_EXTENSION: {}}
    server.middleware.append(_declare_extension)
    if watch is not None:
        server.add_request_handler("subscriptions/listen",
                                   types.SubscriptionsListenRequestParams, watch.listen)
    if watch is not None and kept and "read" in scopes:
        server.add_notification_handler("notifications/initialized",
                                        types.NotificationParams, watch.attach)
        server.add_request_handler("resources/subscribe", types.SubscribeRequestParams,
                                   watch.subscribe)
        server.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams,
                                   watch.unsubscribe)
    return server


class Watching(Protocol):
    """What tells a server's clients of changes (`live.Watch`)."""

    async def listen(self, ctx: Context, params: Any) -> Any: ...
    async def attach(self, ctx: Context, params: Any) -> None: ...
    async def subscribe(self, ctx: Context, params: Any) -> Any: ...
    async def unsubscribe(self, ctx: Context, params: Any) -> Any: ...


class _LiveServer(Server[Any]):
    """A server that says its lists change (`listChanged`) when it can tell its clients
    so: when it serves `subscriptions/listen`, which the transports that hold streams
    register (docs/mcp.md, "Live"). The 2026 era derives this by itself; the handshake
    era's `initialize` answer (whose options the stateless HTTP transport does not pass)
    is made to agree here."""

    def create_initialization_options(self, notification_options: NotificationOptions | None
                                      = None, *args: Any, **kwargs: Any
                                      ) -> InitializationOptions:
        live = "subscriptions/listen" in self._request_handlers
        return super().create_initialization_options(
            notification_options or NotificationOptions(prompts_changed=live,
                                                        resources_changed=live),
            *args, **kwargs)


async def _declare_extension(ctx: ServerRequestContext[Any], call_next: CallNext) -> Any:
    """The handshake era's `initialize` answer declares the Skills-over-MCP extension too:
    under `extensions` (SEP-2133, which the SDK leaves out of 2025-era answers) and under
    `experimental`, the 2025 schema's place for what it does not define, which every
    client keeps. The 2026 era's `server/discover` declares it by itself (`extensions`)."""
    result = await call_next(ctx)
    if ctx.method == "initialize" and isinstance(result, dict):
        capabilities = result.setdefault("capabilities", {})
        for key in ("extensions", "experimental"):
            capabilities.setdefault(key, {})[catalogue.SKILLS_EXTENSION] = {}
    return result


def _list_resources(published: Published):
    async def handler(ctx: Context, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[catalogue.resource(entry) for entry in published.entries()])
    return handler


def _read_resource(published: Published):
    async def handler(ctx: Context, params: types.ReadResourceRequestParams
                      ) -> types.ReadResourceResult:
        uri = str(params.uri)
        skill = catalogue.skill_of(uri)
        found = {entry.uri: entry for entry in published.entries(skill)} if skill else {}
        if uri not in found:
            raise _unknown("resource", uri, found)
        return types.ReadResourceResult(contents=[catalogue.contents(found[uri])])
    return handler


def _list_prompts(published: Published):
    async def handler(ctx: Context, params: Any) -> types.ListPromptsResult:
        workspace, _, _ = published.workspace()
        return types.ListPromptsResult(
            prompts=[] if workspace is None else catalogue.prompts(workspace))
    return handler


def _get_prompt(published: Published):
    async def handler(ctx: Context, params: types.GetPromptRequestParams
                      ) -> types.GetPromptResult:
        workspace, number, digest = published.workspace()
        names = workspace.scenarios_by_name if workspace is not None else {}
        if params.name not in names:
            raise _unknown("prompt", params.name, names)
        turn = checked_turn(params.name, params.arguments)
        try:
            answer = assemble_turn(workspace, turn, published.models)  # type: ignore[arg-type]
        except TurnProblem as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from None
        return catalogue.prompt_result(answer, params.name, number, digest)
    return handler


def checked_turn(scenario: str, arguments: dict[str, str] | None) -> AssembleRequest:
    """The turn a prompt's arguments ask for, held to the runtime API's limits; raises
    `MCPError` (`INVALID_PARAMS`) saying what is wrong, never echoing a value."""
    arguments = arguments or {}
    if len(arguments) > MOST_ARGUMENTS:
        raise MCPError(INVALID_PARAMS, f"at most {MOST_ARGUMENTS} arguments, not "
                                       f"{len(arguments)}")
    for name, value in arguments.items():
        if len(name) > 200 or len(value) > LONGEST_TEXT:
            raise MCPError(INVALID_PARAMS, f"argument {excerpt(name)}: at most 200 characters "
                                           f"a name and {LONGEST_TEXT:,} a value")
    try:
        return AssembleRequest.model_validate(catalogue.turn(scenario, arguments))
    except ModelError as exc:
        reasons = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                            for e in exc.errors(include_input=False, include_url=False)[:3])
        raise MCPError(INVALID_PARAMS, reasons) from None


def _complete(published: Published):
    async def handler(ctx: Context, params: types.CompleteRequestParams
                      ) -> types.CompleteResult:
        workspace, _, _ = published.workspace()
        values: list[str] = []
        if isinstance(params.ref, types.PromptReference) and workspace is not None \
                and params.ref.name in workspace.scenarios_by_name:
            values = catalogue.completions(workspace, params.argument.name,
                                           params.argument.value)
        return types.CompleteResult(completion=types.Completion(
            values=values, total=len(values), has_more=False))
    return handler


def _unknown(what: str, name: str, known: Iterable[str]) -> MCPError:
    close = closest(name, list(known))
    hint = f"; did you mean {' or '.join(excerpt(c) for c in close)}?" if close else ""
    return MCPError(INVALID_PARAMS, f"no {what} {excerpt(name)}{hint}")
