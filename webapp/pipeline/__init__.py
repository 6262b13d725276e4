"""The context pipeline: skills, tools and a scenario in; the agent's context out.

Pure: plain data in, plain data out; no Flask, SQLAlchemy or I/O beyond reading a
bundle file in `load_bundle`. The web app, the CLI and the tests use only this API.
"""

from .assemble import assemble
from .bundle import (
    BundleError,
    Problem,
    dump_bundle,
    dump_scenario,
    dump_skill,
    dump_tool,
    dump_variable,
    load_bundle,
    parse_json,
)
from .formatters import FORMATTERS, FormatOptions, register_formatter
from .json_markdown import json_to_markdown
from .result import Context, Diagnostic, Origin, SkillTrace, Stage
from .workspace import (
    BUILTIN_TOOLS,
    Agent,
    HistoryEntry,
    Scenario,
    Skill,
    Tool,
    ToolResult,
    Variable,
    Workspace,
)

__all__ = [
    "BUILTIN_TOOLS",
    "FORMATTERS",
    "Agent",
    "BundleError",
    "Context",
    "Diagnostic",
    "FormatOptions",
    "HistoryEntry",
    "Origin",
    "Problem",
    "Scenario",
    "Skill",
    "SkillTrace",
    "Stage",
    "Tool",
    "ToolResult",
    "Variable",
    "Workspace",
    "assemble",
    "dump_bundle",
    "dump_scenario",
    "dump_skill",
    "dump_tool",
    "dump_variable",
    "json_to_markdown",
    "load_bundle",
    "parse_json",
    "register_formatter",
]
