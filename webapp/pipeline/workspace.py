"""The plain data a pipeline run works on: an agent's skills, tools, variables and scenarios.

Everything here is immutable. A `Workspace` is built by `load_bundle` (from the
`skill-workspace/1` or `/2` JSON bundle) or by the store (from database rows); the pipeline
only reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .folders import Folder

BUNDLE_FORMAT = "skill-workspace/1"
#: The bundle format that also holds each skill's folder (`folders.Folder`); a bundle is
#: written as `/1` when no skill has a head, CRLF line ends or a file.
FOLDERS_FORMAT = "skill-workspace/2"

#: Role labels used by the `dm_history` format, keyed by history role.
DEFAULT_HISTORY_LABELS: dict[str, str] = {"assistant": "You", "user": "Admin"}

#: Names the runtime provides itself; a mock tool may not take one of them.
BUILTIN_TOOLS: dict[str, str] = {
    "message_current": "The incoming message, verbatim.",
    "dm_history": "The scenario's direct-message history.",
    "trigger_event": "The event that triggered this run.",
    "tool_list": "The workspace's tools, as a markdown list of names and descriptions.",
}
#: Aliases of built-in tools, usable as `{{alias}}` and as a binding's `tool`.
BUILTIN_ALIASES: dict[str, str] = {"message": "message_current",
                                   "triggering_event": "trigger_event"}
RESERVED_TOOL_NAMES = frozenset(BUILTIN_TOOLS) | frozenset(BUILTIN_ALIASES)

MESSAGE_MODES = ("grouped", "sequence")
#: The context windows, in tokens, of the models the request bodies name (the vendors'
#: published figures); an agent may set its own.
MODEL_WINDOWS = {
    "gpt-4o": 128_000, "gpt-4o-mini": 128_000, "gpt-4.1": 1_047_576, "gpt-4.1-mini": 1_047_576,
    "o3": 200_000, "o4-mini": 200_000,
    "claude-sonnet-4-5": 200_000, "claude-opus-4-1": 200_000, "claude-haiku-4-5": 200_000,
}
#: The model an agent is for unless it names one, and the one an OpenAI request body names.
DEFAULT_MODEL = "gpt-4o"
#: The model an Anthropic request body names unless the app's config names another.
DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5"
#: The window of a model not in `MODEL_WINDOWS` that names no window of its own.
DEFAULT_WINDOW = 128_000
ROLES = ("system", "user", "assistant")
#: The roles of a DM-history entry: history is conversation data, never a system prompt.
HISTORY_ROLES = ("user", "assistant")


@dataclass(frozen=True, slots=True)
class Agent:
    """The agent a workspace describes and how its context is laid out."""

    name: str
    title: str = "{name}"
    message_mode: str = "grouped"
    max_array_items: int = 8
    history_labels: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_HISTORY_LABELS))
    #: The model the context is meant for, and its context window in tokens (0: the
    #: model's own, from `MODEL_WINDOWS`); the assembly does not read them.
    model: str = DEFAULT_MODEL
    context_window: int = 0
    #: Whether every scenario also gets the built-in context tests
    #: (`expectations.builtin_checks`).
    builtin_tests: bool = True

    @property
    def window(self) -> int:
        """The context window the document must fit: the agent's, else its model's."""
        return self.context_window or MODEL_WINDOWS.get(self.model, DEFAULT_WINDOW)

    @property
    def title_text(self) -> str:
        """The document title: the title template with `{name}` filled in."""
        return self.title.replace("{name}", self.name)


@dataclass(frozen=True, slots=True)
class Skill:
    """A markdown snippet with role markers, `{{variables}}` and references."""

    d_tag: str
    content: str
    name: str = ""
    layer: int = 1
    triggers: tuple[str, ...] = ()
    enabled: bool = True
    #: What the skill is for, in a sentence (the Agent Skills format's key field); the
    #: assembly does not read it.
    description: str = ""


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A mock tool's answer to one exact set of arguments."""

    args: Any
    result: Any


@dataclass(frozen=True, slots=True)
class Tool:
    """A mock tool: a default result and optional results keyed by exact args."""

    name: str
    description: str = ""
    result: Any = None
    results_by_args: tuple[ToolResult, ...] = ()
    #: False: this run has no result for the tool (a runtime's turn posted none and named
    #: no scenario), so a call gives empty text and `tool-not-called`.
    called: bool = True

    def call(self, args: Any) -> Any:
        """Return the result for `args`: the first exact match, else the default."""
        for entry in self.results_by_args:
            if entry.args == args:
                return entry.result
        return self.result


@dataclass(frozen=True, slots=True)
class Variable:
    """A `{{name}}` bound to a tool call, a field of its result and a format."""

    name: str
    tool: str
    args: Any = None
    result_field: str = "content"
    path: str | None = None
    format: str | None = None  # None: the tool's own format (markdown for mock tools)
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One direct message of a scenario's history."""

    role: str
    content: str
    created_at: Any = None


@dataclass(frozen=True, slots=True)
class Scenario:
    """Sample input for a run: the trigger, the incoming message, history and event."""

    name: str
    trigger: str = "dm"
    message: str = ""
    history: tuple[HistoryEntry, ...] = ()
    event: Any = None
    provider: str | None = None
    #: Its context tests, as the bundle writes them (`expectations.read_expectations`).
    expect: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Workspace:
    """One agent with everything its context is assembled from."""

    agent: Agent
    skills: tuple[Skill, ...] = ()
    tools: tuple[Tool, ...] = ()
    variables: tuple[Variable, ...] = ()
    scenarios: tuple[Scenario, ...] = ()
    #: The skills' folders that hold more than their text (`folders.Folder`): read from a
    #: `/2` bundle, or given by the store where every byte counts (publish, export).
    folders: tuple[Folder, ...] = ()

    @cached_property
    def skills_by_tag(self) -> dict[str, Skill]:
        return {skill.d_tag: skill for skill in self.skills}

    @cached_property
    def folders_by_tag(self) -> dict[str, Folder]:
        return {folder.d_tag: folder for folder in self.folders}

    @cached_property
    def tools_by_name(self) -> dict[str, Tool]:
        return {tool.name: tool for tool in self.tools}

    @cached_property
    def variables_by_name(self) -> dict[str, Variable]:
        return {var.name: var for var in self.variables}

    @cached_property
    def scenarios_by_name(self) -> dict[str, Scenario]:
        return {sc.name: sc for sc in self.scenarios}

    @cached_property
    def triggers(self) -> tuple[str, ...]:
        """Every trigger a skill or scenario names, in first-seen order."""
        seen: dict[str, None] = {}
        for skill in self.skills:
            for trigger in skill.triggers:
                seen.setdefault(trigger)
        for scenario in self.scenarios:
            seen.setdefault(scenario.trigger)
        return tuple(seen)
