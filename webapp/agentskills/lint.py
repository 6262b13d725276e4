"""What each target client would refuse, cut or ignore in a skill's SKILL.md, as problems.

`lint_skill` reads the SKILL.md a skill exports (its head as `skill_md.head_for` writes it,
then its text) and says, for the agent's target clients (`clients.CLIENTS`), what breaks
a client's rule: one problem a rule, naming every target client whose rule it is and what
that client does (refuses the skill, skips it, cuts it, ignores a key). A rule no target
client has is not reported. Besides the clients' rules, the specification's advice on a
long body, and a file the body mentions that the skill does not carry. Problems are the
pipeline's `Diagnostic`s: a frontmatter problem names its line of SKILL.md in its message
(`line` is a line of the skill's text, as everywhere); a body problem has its `line`.
Codes are stable (docs/folders.md lists them). Pure: no I/O, linear in the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from webapp.pipeline import Diagnostic, Skill

from .clients import CLIENTS, SPEC_KEYS
from .frontmatter import SkillMdError, parse_head
from .listing import SHORT_DESCRIPTION_MAX_LENGTH, left_out, listed_description
from .paths import fold
from .skill_md import DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH, head_for, skill_name

#: The specification's advice: SKILL.md's body under about 500 lines and 5,000 tokens.
BODY_LINES, BODY_TOKENS = 500, 5_000
COMPATIBILITY_MAX_LENGTH = 500
#: Claude's Agent Skills: words a name must not hold.
RESERVED_WORDS = ("anthropic", "claude")
#: The folders where the specification puts a skill's files: a path under one of them is
#: a file reference wherever the body writes it.
RESOURCE_FOLDERS = ("scripts/", "references/", "reference/", "assets/", "templates/",
                    "examples/")
#: Characters around a word that are not part of a path written in it.
_AROUND = "`'\"()[]{}<>,;:!?*|"
_TAG_OPENING = re.compile(r"<[A-Za-z/!?]")
#: Gemini CLI writes these characters of a name as `-` (skillLoader.ts).
_GEMINI_SANITIZED = str.maketrans({ch: "-" for ch in ':\\/<>*?"|'})


class _Found:
    """The problems of one skill, each kept for the target clients it concerns."""

    def __init__(self, skill: Skill, targets: Sequence[str], data: Mapping[str, Any]):
        self.skill, self.targets, self.problems = skill, targets, []
        #: Which clients leave the skill out, and for which rule (`listing.left_out`): the
        #: catalogue's judgement, so the lint says "skips the skill" exactly where the
        #: catalogue does not list it.
        self.left_out = left_out(data)

    def skipping(self, code: str, consequence: str = "skips the skill") -> dict[str, str]:
        """What each client that leaves the skill out for the rule `code` does."""
        return {client: consequence for client in self.left_out.get(code, ())}

    def add(self, code: str, severity: str, what: str, by_client: Mapping[str, str],
            line: int | None = None) -> None:
        """A problem `what`, with what each client of `by_client` does about it, when one of
        them is a target (`*` stands for every target)."""
        if "*" in by_client:
            consequences = [by_client["*"]]
        else:
            consequences = [f"{CLIENTS[c].name} {by_client[c]}" for c in self.targets
                            if c in by_client]
            if not consequences:
                return
        self.problems.append(Diagnostic(severity, code, f"{what}: {'; '.join(consequences)}.",
                                        skill=self.skill.d_tag, line=line))


def lint_skill(skill: Skill, head: str, paths: Collection[str], targets: Sequence[str], *,
               others: Mapping[str, str] | None = None,
               count_tokens: Callable[[str], int] | None = None) -> list[Diagnostic]:
    """The problems of `skill` (with the SKILL.md head it was read with, "" for none, and
    the paths of the files beside it) for the clients `targets`.

    `others` maps the name each other skill of the agent exports (`exported_name`) to its
    d_tag, for the clients that keep one skill of a name. `count_tokens` counts the body's
    tokens (about a quarter of its characters without it).
    """
    written = head_for(skill, head)
    try:
        data, lines = parse_head(written)
    except SkillMdError:  # a head that reads as the skill parses; kept for safety's sake
        data, lines = {}, {}
    found = _Found(skill, targets, data)

    def at(key: str) -> str:
        return f" (SKILL.md line {lines[key]})" if key in lines else ""

    _name(found, data.get("name"), skill_name(skill.d_tag), at("name"))
    _description(found, data.get("description"), at("description"))
    _cut(found, data)
    _not_listed(found, at)
    _other_keys(found, data, at)
    if others:
        _duplicates(found, data.get("name"), others)
    _body(found, skill.content, count_tokens)
    _references(found, skill.content, paths)
    return found.problems


def exported_name(skill: Skill, head: str) -> str:
    """The `name` the skill's SKILL.md says (its folder's name when it says none)."""
    try:
        name = parse_head(head_for(skill, head))[0].get("name")
    except SkillMdError:
        name = None
    return name if isinstance(name, str) else skill_name(skill.d_tag)


def _name(found: _Found, name: Any, folder: str, where: str) -> None:
    if not isinstance(name, str) or not name.strip():
        found.add("name-missing", "error", f"SKILL.md has no name{where}",
                  {"agentskills": "requires one", "vscode-copilot": "requires one",
                   **found.skipping("name-missing")})
        return
    normal = unicodedata.normalize("NFKC", name.strip())
    if len(normal) > NAME_MAX_LENGTH:
        limit = f"allows {NAME_MAX_LENGTH} characters"
        found.add("name-too-long", "error", f"the name is {len(normal)} characters{where}",
                  {"agentskills": limit, "vscode-copilot": limit, "claude-code": limit,
                   **found.skipping("name-too-long", f"skips the skill ({limit})")})
    reasons = _name_reasons(normal)
    if reasons:
        rule = "allows lowercase letters, digits and single hyphens"
        found.add("name-invalid", "error", f"the name {name!r} {', '.join(reasons)}{where}",
                  {"agentskills": f"{rule} (skills-ref validate refuses it)",
                   "vscode-copilot": rule, "claude-code": rule})
    if unicodedata.normalize("NFKC", folder) != normal:
        found.add("name-folder-mismatch", "error",
                  f"the name {name!r} is not the name of the skill's folder, {folder!r}{where}",
                  {"agentskills": "requires them equal", "vscode-copilot": "requires them equal"})
    reserved = [word for word in RESERVED_WORDS if word in normal.lower()]
    if reserved:
        found.add("name-reserved-word", "error",
                  f"the name holds the reserved word {reserved[0]!r}{where}",
                  {"claude-code": "refuses names with 'anthropic' or 'claude'"})
    if _TAG_OPENING.search(name):
        found.add("xml-tags", "error", f"the name holds an XML tag{where}",
                  {"claude-code": "refuses XML tags in a name"})


def _name_reasons(name: str) -> list[str]:
    """What breaks the specification's name rule, as skills-ref checks it (after NFKC)."""
    reasons = []
    if name != name.lower():
        reasons.append("has capital letters")
    if not all(ch.isalnum() or ch == "-" for ch in name):
        reasons.append("holds characters other than letters, digits and hyphens")
    if name.startswith("-") or name.endswith("-"):
        reasons.append("starts or ends with a hyphen")
    if "--" in name:
        reasons.append("holds two hyphens in a row")
    return reasons


def _description(found: _Found, description: Any, where: str) -> None:
    if not isinstance(description, str) or not description.strip():
        found.add("description-missing", "error", f"SKILL.md has no description{where}",
                  {"agentskills": "requires one, of 1 to 1,024 characters",
                   "vscode-copilot": "requires one", **found.skipping("description-missing")})
        return
    length = len(description)
    limit = f"allows {DESCRIPTION_MAX_LENGTH:,} characters"
    if length > DESCRIPTION_MAX_LENGTH:  # Codex counts runs of spaces as one
        found.add("description-too-long", "error",
                  f"the description is {length:,} characters{where}",
                  {"agentskills": limit, "vscode-copilot": limit,
                   **found.skipping("description-too-long", f"skips the skill ({limit})")})
    if _TAG_OPENING.search(description):
        found.add("xml-tags", "error", f"the description holds an XML tag{where}",
                  {"claude-code": "refuses XML tags in a description"})


def _cut(found: _Found, data: Mapping[str, Any]) -> None:
    """A description a client cuts in its listing (one it lists): the description it
    lists, measured."""
    leaving = {client for clients in found.left_out.values() for client in clients}
    for client in CLIENTS.values():
        if client.id in leaving:
            continue
        listed = listed_description(client, data)
        if client.entry_cap and len(listed) > client.entry_cap:
            what = "the description" + (" and when_to_use" if "when_to_use" in data else "")
            found.add("description-cut", "warning",
                      f"{what} as listed {'are' if 'when_to_use' in data else 'is'} "
                      f"{len(listed):,} characters",
                      {client.id: f"lists only its first {client.entry_cap:,}"})


def _not_listed(found: _Found, at: Callable[[str], str]) -> None:
    found.add("not-listed", "info",
              f"disable-model-invocation is true{at('disable-model-invocation')}",
              found.skipping("not-listed", "does not list the skill (only a person invokes it)"))


def _other_keys(found: _Found, data: Mapping[str, Any], at: Callable[[str], str]) -> None:
    compatibility = data.get("compatibility")
    if "compatibility" in data and (not isinstance(compatibility, str) or not 1 <= len(
            compatibility) <= COMPATIBILITY_MAX_LENGTH):
        size = (f"is {len(compatibility):,} characters" if isinstance(compatibility, str)
                else "is not text")
        found.add("compatibility-invalid", "error", f"compatibility {size}{at('compatibility')}",
                  {"agentskills": f"allows text of 1 to {COMPATIBILITY_MAX_LENGTH} characters"})
    metadata = data.get("metadata")  # not a mapping: the read refused it
    if isinstance(metadata, Mapping):
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            found.add("metadata-not-strings", "warning",
                      f"metadata holds values that are not strings{at('metadata')}",
                      {"agentskills": "defines it as a map from strings to strings"})
        short = metadata.get("short-description")
        if isinstance(short, str) and len(short) > SHORT_DESCRIPTION_MAX_LENGTH:
            found.add("short-description-too-long", "error",
                      f"metadata.short-description is {len(short):,} characters{at('metadata')}",
                      found.skipping("short-description-too-long",
                                     f"skips the skill ({SHORT_DESCRIPTION_MAX_LENGTH} at most)"))
    tools = data.get("allowed-tools")
    if "allowed-tools" in data and not (isinstance(tools, str) or (
            isinstance(tools, list) and all(isinstance(t, str) for t in tools))):
        found.add("allowed-tools-invalid", "error",
                  f"allowed-tools is neither text nor a list of text{at('allowed-tools')}",
                  {"agentskills": "allows a space-separated string or a list of strings"})
    keys = [key for key in data if isinstance(key, str)]
    unknown = [key for key in keys if key not in SPEC_KEYS]
    if unknown:
        found.add("key-unknown", "error",
                  f"keys outside the specification: {', '.join(unknown)}{at(unknown[0])}",
                  {"agentskills": "allows only " + ", ".join(SPEC_KEYS)
                                  + " (skills-ref validate refuses the rest)"})
    # A key another target client acts on that this one does not read: the skill behaves
    # differently there. Keys only the specification describes are left out.
    for client in found.targets:
        if client == "agentskills":  # said above: it refuses them
            continue
        ignored = [key for key in keys if key not in CLIENTS[client].keys
                   and (key not in SPEC_KEYS or key == "allowed-tools")
                   and any(key in CLIENTS[other].keys for other in CLIENTS if other != client)]
        if ignored:
            found.add("key-ignored", "info", f"{', '.join(ignored)}{at(ignored[0])}",
                      {client: "does not read " + ("it" if len(ignored) == 1 else "them")})


def _duplicates(found: _Found, name: Any, others: Mapping[str, str]) -> None:
    if not isinstance(name, str):
        return
    same = others.get(name)
    if same is not None:
        found.add("name-duplicate", "error", f"the skill {same!r} has the name {name!r} too",
                  {"codex": "keeps only one of them", "gemini-cli": "lets one override the other"})
        return
    sanitized = name.translate(_GEMINI_SANITIZED).lower()
    other = next((d for n, d in others.items()
                  if n.translate(_GEMINI_SANITIZED).lower() == sanitized), None)
    if other is not None:
        found.add("name-duplicate", "error",
                  f"the skill {other!r} has a name that reads as {name!r} too",
                  {"gemini-cli": "finds skills by name in any case: one hides the other"})


def _body(found: _Found, body: str, count_tokens: Callable[[str], int] | None) -> None:
    lines = body.count("\n") + (0 if body.endswith("\n") or not body else 1)
    tokens = count_tokens(body) if count_tokens else len(body) // 4
    if lines > BODY_LINES or tokens > BODY_TOKENS:
        found.add("body-long", "info",
                  f"the body is {lines:,} lines, about {tokens:,} tokens",
                  {"*": f"the specification advises under {BODY_LINES} lines and "
                        f"{BODY_TOKENS:,} tokens, with details in files the body points to"})


def _references(found: _Found, body: str, paths: Collection[str]) -> None:
    """Each file the body mentions that the skill does not carry, at its first line."""
    folded = {fold(path): path for path in paths}
    seen: set[str] = set()
    for number, line in enumerate(body.splitlines(), start=1):
        for path in _mentioned(line):
            if path in seen or path in paths:
                continue
            seen.add(path)
            other = folded.get(fold(path))
            if other is not None:
                found.add("file-case", "warning", f"the body mentions {path}, which is {other}",
                          {"*": "a file system that tells letter case apart finds no such file"},
                          line=number)
            else:
                found.add("file-missing", "warning",
                          f"the body mentions {path}, which the skill does not carry",
                          {"*": "add it to the skill's files, or correct the mention"},
                          line=number)


def _mentioned(line: str) -> list[str]:
    """The paths of the skill's folder a line mentions: a link's relative target, a path
    under one of `RESOURCE_FOLDERS`, or a markdown file named alone (`see FORMS.md`)."""
    found = []
    for word in line.split():
        start = word.find("](")
        if start >= 0:  # a markdown link: its target, up to the closing parenthesis
            word = word[start + 2:].split(")")[0]
        word = word.rstrip(_AROUND + ".").lstrip(_AROUND).split("#")[0]
        word = word.removeprefix("./")
        if not word or "://" in word or word.startswith(("/", "~", "mailto:", "$")):
            continue
        stem, dot, extension = word.rpartition(".")
        if not dot or not stem or not extension.isalnum():
            continue
        if start >= 0 or word.startswith(RESOURCE_FOLDERS) or (
                extension.lower() == "md" and "/" not in word):
            found.append(word)
    return found
