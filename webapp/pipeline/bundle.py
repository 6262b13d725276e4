"""The `skill-workspace/1` and `/2` bundles: one JSON document holding a whole workspace
(`/2` also holds each skill's folder: `folders.read_folder`).

`load_bundle` checks the bundle's shape and types and reports every problem at once
with its JSON path; cross-references (a binding's tool, a `{{name}}` in a skill) are
left to assembly, which reports them as diagnostics. `dump_bundle` (in `dump.py`) is
its inverse.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .bundle_schema import SECTION_KEYS as KEYS
from .expectations import read_expectations
from .folders import FOLDER_KEYS, Folder, read_folder
from .untrusted import JsonNumber, excerpt, loads_json
from .workspace import (
    BUNDLE_FORMAT,
    DEFAULT_HISTORY_LABELS,
    DEFAULT_MODEL,
    FOLDERS_FORMAT,
    HISTORY_ROLES,
    MESSAGE_MODES,
    RESERVED_TOOL_NAMES,
    Agent,
    HistoryEntry,
    Scenario,
    Skill,
    Tool,
    ToolResult,
    Variable,
    Workspace,
)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a bundle: where (a JSON path such as `$.skills[2].d_tag`) and why."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class BundleError(ValueError):
    """A bundle that cannot be loaded; `.problems` lists every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems)
        count = f"{len(problems)} problem{'s' * (len(problems) != 1)}"
        super().__init__(f"invalid bundle ({count}):\n{lines}")


def parse_json(text: str, path: str = "$") -> Any:
    """Parse JSON text, raising `BundleError` that names the line and column of a syntax error."""
    try:
        return loads_json(text)
    except json.JSONDecodeError as exc:
        message = f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        raise BundleError([Problem(path, message)]) from None


def load_bundle(source: str | os.PathLike[str] | dict[str, Any]) -> Workspace:
    """Load a `skill-workspace/1` or `/2` bundle from a file path or an already parsed dict.

    Raises:
        BundleError: the file is unreadable or not JSON, or the bundle has problems;
            every problem is listed with its JSON path.
    """
    if isinstance(source, dict):
        data = source
    else:
        try:
            text = Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise BundleError([Problem("$", f"cannot read {os.fspath(source)}: {exc}")]) from None
        data = parse_json(text)
    checker = _Checker()
    workspace = checker.workspace(data)
    if checker.problems:
        raise BundleError(checker.problems)
    assert workspace is not None
    return workspace


#: The sections of a bundle that hold a list of items, and the one that holds the agent.
ITEM_SECTIONS = ("skills", "tools", "variables", "scenarios")


_FIELD_END = re.compile(r"[.\[]")


def item_field(path: str) -> str:
    """The field of an item that a path relative to it is in: `triggers[2]` -> `triggers`."""
    return _FIELD_END.split(path, maxsplit=1)[0] or path


def check_item(section: str, item: Any) -> list[Problem]:
    """The bundle's rules applied to one item of `section` (or to the `agent` object).

    Each problem's path is relative to the item: `d_tag`, `results_by_args[1].args`, or
    "" for the item as a whole. The store and every form check a single item with this,
    so what can be saved can always be exported and imported again.

    Raises:
        ValueError: `section` is not `agent` or one of `ITEM_SECTIONS`.
    """
    checker = _Checker()
    readers = {"agent": checker.agent, "skills": checker.skill, "tools": checker.tool,
               "variables": checker.variable, "scenarios": checker.scenario}
    if section not in readers:
        raise ValueError(f"unknown bundle section {section!r}")
    readers[section](item, "")
    return [Problem(p.path.removeprefix("."), p.message) for p in checker.problems]


_MISSING = object()


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float, JsonNumber)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


class _Checker:
    """Walks a parsed bundle, collecting problems instead of stopping at the first."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        #: Whether skills may hold their folders (a `/2` bundle), and those read.
        self.with_folders = False
        self.folders: list[Folder] = []

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    # -- typed field readers: each returns the default and records a problem on a bad value

    def obj(self, value: Any, path: str, allowed: tuple[str, ...]) -> dict[str, Any] | None:
        if not isinstance(value, dict):
            self.problem(path, f"must be an object, not {_type_name(value)}")
            return None
        for key in value:
            if key not in allowed:
                self.problem(f"{path}.{key}",
                             f"unknown key (expected one of: {', '.join(allowed)})")
        return value

    def string(self, data: dict, key: str, path: str, default: Any = _MISSING, *,
               nullable: bool = False, nonempty: bool = False) -> Any:
        value = data.get(key, _MISSING)
        where = f"{path}.{key}"
        if value is _MISSING:
            if default is _MISSING:
                self.problem(where, "is required")
                return ""
            return default
        if value is None and nullable:
            return None
        if not isinstance(value, str):
            self.problem(where, f"must be a string, not {_type_name(value)}")
            return default if default is not _MISSING else ""
        if nonempty and not value.strip():
            self.problem(where, "must not be empty")
        return value

    def integer(self, data: dict, key: str, path: str, default: Any, *, minimum: int = 0,
                nullable: bool = False, choices: tuple[int, ...] = ()) -> Any:
        value = data.get(key, default)
        if value is None and nullable:
            return None
        where = f"{path}.{key}"
        if isinstance(value, bool) or not isinstance(value, int):
            self.problem(where, f"must be an integer, not {_type_name(value)}")
            return default
        if choices and value not in choices:
            self.problem(where, f"must be one of {', '.join(map(str, choices))}, not {value}")
            return default
        if value < minimum:
            self.problem(where, f"must be at least {minimum}, not {value}")
            return default
        return value

    def boolean(self, data: dict, key: str, path: str, default: bool) -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            self.problem(f"{path}.{key}", f"must be true or false, not {_type_name(value)}")
            return default
        return value

    def array(self, data: dict, key: str, path: str) -> list[Any]:
        value = data.get(key, [])
        if not isinstance(value, list):
            self.problem(f"{path}.{key}", f"must be an array, not {_type_name(value)}")
            return []
        return value

    def name_token(self, value: str, where: str, what: str) -> None:
        """Names used as `{{name}}` must be a run of characters without whitespace or braces."""
        if value and any(ch.isspace() or ch in "{}" for ch in value):
            self.problem(where, f"{what} must not contain whitespace or braces: {excerpt(value)}")

    def unique(self, names: list[tuple[str, str]], what: str) -> None:
        seen: dict[str, str] = {}
        for name, where in names:
            if name in seen:
                self.problem(where, f"duplicate {what} {excerpt(name)} (first at {seen[name]})")
            else:
                seen[name] = where

    # -- sections of the bundle

    def workspace(self, data: Any) -> Workspace | None:
        root = self.obj(data, "$", KEYS["root"])
        if root is None:
            return None
        fmt = root.get("format", _MISSING)
        if fmt is _MISSING:
            self.problem("$.format", "is required")
        elif fmt not in (BUNDLE_FORMAT, FOLDERS_FORMAT):
            self.problem("$.format", f"must be {BUNDLE_FORMAT!r} or {FOLDERS_FORMAT!r}, "
                                     f"not {excerpt(fmt)}")
        self.with_folders = fmt == FOLDERS_FORMAT
        if "agent" not in root:
            self.problem("$.agent", "is required")
            agent = Agent(name="")
        else:
            agent = self.agent(root["agent"], "$.agent")
        skills = [self.skill(v, f"$.skills[{i}]")
                  for i, v in enumerate(self.array(root, "skills", "$"))]
        tools = [self.tool(v, f"$.tools[{i}]")
                 for i, v in enumerate(self.array(root, "tools", "$"))]
        variables = [self.variable(v, f"$.variables[{i}]")
                     for i, v in enumerate(self.array(root, "variables", "$"))]
        scenarios = [self.scenario(v, f"$.scenarios[{i}]")
                     for i, v in enumerate(self.array(root, "scenarios", "$"))]
        self.unique([(s.d_tag, f"$.skills[{i}].d_tag") for i, s in enumerate(skills) if s], "d_tag")
        self.unique([(t.name, f"$.tools[{i}].name") for i, t in enumerate(tools) if t], "tool name")
        self.unique([(v.name, f"$.variables[{i}].name") for i, v in enumerate(variables) if v],
                    "variable name")
        self.unique([(s.name, f"$.scenarios[{i}].name") for i, s in enumerate(scenarios) if s],
                    "scenario name")
        return Workspace(
            agent=agent,
            skills=tuple(s for s in skills if s),
            tools=tuple(t for t in tools if t),
            variables=tuple(v for v in variables if v),
            scenarios=tuple(s for s in scenarios if s),
            folders=tuple(folder for folder in self.folders if not folder.empty),
        )

    def agent(self, value: Any, path: str) -> Agent:
        data = self.obj(value, path, KEYS["agent"])
        if data is None:
            return Agent(name="")
        mode = self.string(data, "message_mode", path, "grouped")
        if mode not in MESSAGE_MODES:
            self.problem(f"{path}.message_mode",
                         f"must be one of {', '.join(MESSAGE_MODES)}, not {excerpt(mode)}")
            mode = "grouped"
        labels = data.get("history_labels", DEFAULT_HISTORY_LABELS)
        if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
            self.problem(f"{path}.history_labels",
                         "must be an object mapping roles to label strings")
            labels = DEFAULT_HISTORY_LABELS
        return Agent(
            name=self.string(data, "name", path, nonempty=True),
            title=self.string(data, "title", path, "{name}"),
            message_mode=mode,
            max_array_items=self.integer(data, "max_array_items", path, 8),
            history_labels=dict(labels),
            model=self.string(data, "model", path, DEFAULT_MODEL),
            context_window=self.integer(data, "context_window", path, 0),
            builtin_tests=self.boolean(data, "builtin_tests", path, True),
        )

    def skill(self, value: Any, path: str) -> Skill | None:
        allowed = KEYS["skill"] + FOLDER_KEYS if self.with_folders else KEYS["skill"]
        data = self.obj(value, path, allowed)
        if data is None:
            return None
        d_tag = self.string(data, "d_tag", path, nonempty=True)
        if self.with_folders:
            self.folders.append(read_folder(data, d_tag, path, self.problem))
        self.name_token(d_tag, f"{path}.d_tag", "a d_tag")
        triggers = self.array(data, "triggers", path)
        for i, trigger in enumerate(triggers):
            if not isinstance(trigger, str) or not trigger.strip():
                self.problem(f"{path}.triggers[{i}]", "must be a non-empty string")
        return Skill(
            d_tag=d_tag,
            content=self.string(data, "content", path),
            name=self.string(data, "name", path, ""),
            layer=self.integer(data, "layer", path, 1, choices=(1, 2)),
            triggers=tuple(t for t in triggers if isinstance(t, str)),
            enabled=self.boolean(data, "enabled", path, True),
            description=self.string(data, "description", path, ""),
        )

    def tool(self, value: Any, path: str) -> Tool | None:
        data = self.obj(value, path, KEYS["tool"])
        if data is None:
            return None
        name = self.string(data, "name", path, nonempty=True)
        if name in RESERVED_TOOL_NAMES:
            self.problem(f"{path}.name",
                         f"{excerpt(name)} is a built-in tool name and cannot be redefined")
        self.name_token(name, f"{path}.name", "a tool name")
        by_args = []
        for i, entry in enumerate(self.array(data, "results_by_args", path)):
            where = f"{path}.results_by_args[{i}]"
            item = self.obj(entry, where, KEYS["result"])
            if item is None:
                continue
            if "args" not in item:
                self.problem(f"{where}.args", "is required")
            by_args.append(ToolResult(args=item.get("args"), result=item.get("result")))
        return Tool(
            name=name,
            description=self.string(data, "description", path, ""),
            result=data.get("result"),
            results_by_args=tuple(by_args),
        )

    def variable(self, value: Any, path: str) -> Variable | None:
        data = self.obj(value, path, KEYS["variable"])
        if data is None:
            return None
        name = self.string(data, "name", path, nonempty=True)
        self.name_token(name, f"{path}.name", "a variable name")
        return Variable(
            name=name,
            tool=self.string(data, "tool", path, nonempty=True),
            args=data.get("args"),
            result_field=self.string(data, "result_field", path, "content", nullable=True)
            or "content",
            path=self.string(data, "path", path, None, nullable=True),
            format=self.string(data, "format", path, None, nullable=True),
            limit=self.integer(data, "limit", path, None, nullable=True),
        )

    def scenario(self, value: Any, path: str) -> Scenario | None:
        data = self.obj(value, path, KEYS["scenario"])
        if data is None:
            return None
        history = []
        for i, entry in enumerate(self.array(data, "history", path)):
            where = f"{path}.history[{i}]"
            item = self.obj(entry, where, KEYS["history"])
            if item is None:
                continue
            role = self.string(item, "role", where)
            if role and role not in HISTORY_ROLES:
                self.problem(f"{where}.role",
                             f"must be one of {', '.join(HISTORY_ROLES)} (history is the "
                             f"conversation), not {excerpt(role)}")
            history.append(HistoryEntry(role=role, content=self.string(item, "content", where, ""),
                                        created_at=item.get("created_at")))
        return Scenario(
            name=self.string(data, "name", path, nonempty=True),
            trigger=self.string(data, "trigger", path, "dm"),
            message=self.string(data, "message", path, ""),
            history=tuple(history),
            event=data.get("event"),
            provider=self.string(data, "provider", path, None, nullable=True),
            expect=self.expectations(data.get("expect"), f"{path}.expect"),
        )

    def expectations(self, value: Any, path: str) -> tuple[Any, ...]:
        _, problems = read_expectations(value, path)
        for where, message in problems:
            self.problem(where, message)
        return tuple(value) if isinstance(value, list) else ()
