"""What an agent's MCP server serves, from a published snapshot: its skills' folders as
`skill://` resources (the Skills-over-MCP convention) and its scenarios as prompts.

No SDK session and no database here: folders, a workspace and an assembled turn in, the
protocol's result models out, so each mapping is tested alone. `server` wires them to
the SDK's handlers.
"""

from __future__ import annotations

import base64
import mimetypes
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mcp import types

from webapp.agentskills import (
    SKILL_FILE,
    SkillFile,
    SkillFolder,
    folder_files,
    folder_names,
    head_for,
    parse_head,
)
from webapp.pipeline import Scenario, Workspace, dumps_json, excerpt, value_names

#: The Skills-over-MCP extension (the MCP interest group's), declared in `initialize`.
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
SCHEME = "skill://"
#: The MIME type of a SKILL.md, and of a file whose type its name does not tell.
MARKDOWN, TEXT, BINARY = "text/markdown", "text/plain", "application/octet-stream"
#: The prompt argument that carries the user's message; every other is a `{{name}}`.
MESSAGE = "message"
#: Where a prompt message's own role is kept when MCP's roles (user, assistant) lack it.
ROLE_META = "skill-editor/role"
#: Most values a completion answers (the protocol's own limit).
MOST_COMPLETIONS = 100


@dataclass(frozen=True, slots=True)
class Entry:
    """One resource: its URI, the skill's folder name and the file's path in it, its
    MIME type, its bytes, and whether they are text (UTF-8 without NUL)."""

    uri: str
    skill: str
    path: str
    mime_type: str
    data: bytes
    description: str | None = None
    title: str | None = None

    @property
    def text(self) -> str | None:
        return SkillFile(self.path, self.data).text


def entries(folders: Sequence[SkillFolder], skill: str | None = None) -> list[Entry]:
    """Every file of every skill (of the one named `skill` only, when given: a read need
    not write every SKILL.md), SKILL.md first in each: the bytes `skill-editor skills
    export` writes (`agentskills.folder_files`), under the folder names it gives
    (`agentskills.folder_names`)."""
    found = []
    for name, folder in zip(folder_names([f.skill for f in folders]), folders, strict=True):
        if skill is not None and name != skill:
            continue
        fields, _ = parse_head(head_for(folder.skill, folder.head))
        for path, data, _executable in folder_files(folder):  # SKILL.md first
            if path == SKILL_FILE:
                found.append(Entry(f"{SCHEME}{name}/{path}", name, path, MARKDOWN, data,
                                   _text(fields.get("description")),
                                   _text(fields.get("name")) or name))
            else:
                is_text = SkillFile(path, data).text is not None
                found.append(Entry(f"{SCHEME}{name}/{path}", name, path,
                                   mime_type(path, is_text), data))
    return found


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def skill_of(uri: str) -> str | None:
    """The skill folder name a `skill://<name>/<path>` URI names, None for another URI."""
    if not uri.startswith(SCHEME):
        return None
    return uri[len(SCHEME):].partition("/")[0]


def mime_type(path: str, is_text: bool) -> str:
    """The MIME type a file is served with: from its name, else text or bytes."""
    if path.lower().endswith(".md"):
        return MARKDOWN
    guessed, _ = mimetypes.guess_type(path, strict=False)
    return guessed or (TEXT if is_text else BINARY)


def resource(entry: Entry) -> types.Resource:
    """The `resources/list` item of `entry`: a SKILL.md's name and description are its
    frontmatter's; a file is named by its path in the skill."""
    if entry.path == SKILL_FILE:
        return types.Resource(uri=entry.uri, name=entry.skill, title=entry.title,
                              description=entry.description, mime_type=entry.mime_type,
                              size=len(entry.data))
    return types.Resource(uri=entry.uri, name=f"{entry.skill}/{entry.path}",
                          mime_type=entry.mime_type, size=len(entry.data))


def contents(entry: Entry) -> types.TextResourceContents | types.BlobResourceContents:
    """The `resources/read` contents of `entry`: text when it is UTF-8 text (so its bytes
    come back exactly once encoded), else base64."""
    text = entry.text
    if text is not None:
        return types.TextResourceContents(uri=entry.uri, mime_type=entry.mime_type, text=text)
    return types.BlobResourceContents(uri=entry.uri, mime_type=entry.mime_type,
                                      blob=base64.b64encode(entry.data).decode("ascii"))


# -- scenarios as prompts


def prompts(workspace: Workspace) -> list[types.Prompt]:
    """One prompt per scenario, its arguments the turn's real inputs (`arguments`)."""
    return [types.Prompt(name=scenario.name, title=scenario.name,
                         description=_prompt_description(scenario),
                         arguments=arguments(workspace, scenario))
            for scenario in workspace.scenarios]


def _prompt_description(scenario: Scenario) -> str:
    said = f": {excerpt(scenario.message)}" if scenario.message else ""
    return (f"The context the published snapshot assembles for the scenario "
            f"{excerpt(scenario.name)} (trigger {excerpt(scenario.trigger)}{said}).")


def arguments(workspace: Workspace, scenario: Scenario) -> list[types.PromptArgument]:
    """`message` (required when the scenario has none to fall back on) and each `{{name}}`
    a value from outside may fill (`pipeline.value_names`): required unless a mock tool of
    the snapshot gives it."""
    found = [types.PromptArgument(
        name=MESSAGE, required=not scenario.message,
        description="The user's message for this turn" + (
            f"; without it, the scenario's: {excerpt(scenario.message)}"
            if scenario.message else "."))]
    tools = workspace.tools_by_name
    for name in value_names(workspace):
        if name == MESSAGE:
            continue  # the message argument is the turn's message (docs/mcp.md)
        mocked = name in tools
        found.append(types.PromptArgument(
            name=name, required=not mocked,
            description=(f"The value of {{{{{name}}}}} in the skills"
                         + ("; without it, the mock tool's data." if mocked else
                            ": nothing else fills it."))))
    return found


def turn(scenario: str, given: dict[str, str] | None) -> dict[str, Any]:
    """The `AssembleRequest` body a prompt's arguments make: the scenario, the message,
    and every other argument as a `{{name}}`'s value."""
    given = dict(given or {})
    body: dict[str, Any] = {"scenario": scenario, "variables": {}}
    if MESSAGE in given:
        body["message"] = given.pop(MESSAGE)
    body["variables"] = given
    return body


def prompt_result(answer: dict[str, Any], scenario: str, number: int,
                  digest: str) -> types.GetPromptResult:
    """The assembled messages as MCP prompt messages: `user` and `assistant` as they are;
    a `system` message (MCP has no such role) becomes a `user` message whose content's
    `_meta` keeps `skill-editor/role: system`, so a client that knows can put it back."""
    messages = []
    for message in answer["messages"]:
        role = message["role"]
        meta = None if role in ("user", "assistant") else {ROLE_META: role}
        messages.append(types.PromptMessage(
            role=role if meta is None else "user",
            content=types.TextContent(text=message["content"], _meta=meta)))
    return types.GetPromptResult(
        description=f"Scenario {excerpt(scenario)} from snapshot #{number}",
        messages=messages,
        _meta={"skill-editor/snapshot": number, "skill-editor/digest": digest})


def completions(workspace: Workspace, argument: str, typed: str) -> list[str]:
    """Values known for a prompt argument that start with `typed`: the scenarios' messages
    for `message`, a mock tool's data for the `{{name}}` it gives."""
    known: Iterable[str]
    if argument == MESSAGE:
        known = (s.message for s in workspace.scenarios if s.message)
    elif argument in workspace.tools_by_name:
        result = workspace.tools_by_name[argument].result
        known = [] if result is None else [result if isinstance(result, str)
                                           else dumps_json(result)]
    else:
        known = ()
    values = list(dict.fromkeys(value for value in known if value.startswith(typed)))
    return values[:MOST_COMPLETIONS]
