"""The store: what the web app and the CLI do to the database, as plain functions.

This is the only place that turns rows into the pipeline's plain `Workspace` data
and back (`convert`), and the owner of every rule a write must obey (`rules`): the
web forms, the bundle import (web and CLI) and the SKILL.md import all go through it
and get the same messages. Every function takes a `Session`; every function that
changes something does it in one transaction and commits it before returning (on any
error it rolls back, and nothing is written; `transactions.change`). Problems are
raised as the exceptions of `errors`, which carry what a caller needs to show them.

Modules: `actor` (who makes the changes), `accounts` (users, roles, passwords, signing
in), `errors`, `transactions`, `rules`, `convert`, `agents`, `skills` (save, rename,
trash), `revisions`, `items` (tools, variables, scenarios), `workspaces` (load,
export, import), `renames` (a tool or binding with what uses it), `log`.
"""

from . import accounts
from .accounts import ROLES, NewUser, SignInFailed, Throttled, has_role
from .actor import LOCAL, acting_as, current_actor, set_actor
from .agents import (
    AgentRef,
    create_agent,
    delete_agent,
    get_agent,
    list_agent_trash,
    list_agents,
    purge_agent,
    restore_agent,
    update_agent,
)
from .convert import skill_of
from .errors import AlreadyExists, Conflict, InUse, NotFound, StoreError, ValidationError
from .items import (
    create_scenario,
    create_tool,
    create_variable,
    delete_scenario,
    delete_tool,
    delete_variable,
    get_scenario,
    get_tool,
    get_variable,
    list_scenarios,
    list_tools,
    list_variables,
    update_scenario,
    update_tool,
    update_variable,
)
from .log import clear_log, delete_log_entry, get_log_entry, list_log, log_context
from .renames import RenamedItem, rename_tool, rename_variable
from .revisions import get_revision, list_revisions, restore_revision
from .rules import (
    INTEGER_RANGES,
    MAX_ID,
    NAME_LENGTH,
    agent_name_problem,
    bundle_problems,
    item_problems,
    normalize_text,
    parse_integer,
)
from .skills import (
    Renamed,
    create_skill,
    d_tag_problem,
    delete_skill,
    get_skill,
    list_skills,
    list_trash,
    references_to,
    rename_skill,
    reorder_skills,
    restore_skill,
    save_skill,
    set_skill_enabled,
)
from .workspaces import export_bundle, import_bundle, load_workspace

__all__ = [
    "accounts",
    "ROLES",
    "NewUser",
    "SignInFailed",
    "Throttled",
    "has_role",
    "LOCAL",
    "acting_as",
    "current_actor",
    "set_actor",
    "INTEGER_RANGES",
    "MAX_ID",
    "NAME_LENGTH",
    "AgentRef",
    "AlreadyExists",
    "agent_name_problem",
    "Conflict",
    "InUse",
    "NotFound",
    "Renamed",
    "RenamedItem",
    "StoreError",
    "ValidationError",
    "bundle_problems",
    "clear_log",
    "create_agent",
    "delete_agent",
    "list_agent_trash",
    "purge_agent",
    "restore_agent",
    "create_scenario",
    "create_skill",
    "d_tag_problem",
    "create_tool",
    "create_variable",
    "delete_log_entry",
    "delete_scenario",
    "delete_skill",
    "delete_tool",
    "delete_variable",
    "export_bundle",
    "get_agent",
    "get_log_entry",
    "get_revision",
    "get_scenario",
    "get_skill",
    "get_tool",
    "get_variable",
    "import_bundle",
    "item_problems",
    "list_agents",
    "list_log",
    "list_revisions",
    "list_scenarios",
    "list_skills",
    "list_tools",
    "list_trash",
    "list_variables",
    "load_workspace",
    "log_context",
    "normalize_text",
    "parse_integer",
    "references_to",
    "rename_skill",
    "rename_tool",
    "rename_variable",
    "reorder_skills",
    "restore_revision",
    "restore_skill",
    "save_skill",
    "set_skill_enabled",
    "skill_of",
    "update_agent",
    "update_scenario",
    "update_tool",
    "update_variable",
]
