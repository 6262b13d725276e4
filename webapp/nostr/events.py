"""An agent as Nostr events, and Nostr events back into an agent (docs/nostr.md).

`agent_events` writes the unsigned events of a workspace: a skill event per skill the
agent's own key authors (kind 31123 for layer 1, 31124 for layer 2), the settings
event (31120, `d` = the agent's name) and the adoption list (10123), whose ordered `a`
tags name the settings and every skill in assembly order, another author's included.
`read_agent` is its inverse for events that came from elsewhere: each is verified
(`keys.event_problem`) before it is looked at, the newest per address wins, and what
the list names becomes a `skill-workspace/1` bundle checked by the pipeline's own
`load_bundle`, so a skill from a relay obeys the rules a skill from anywhere obeys.
A skill event also names its folder: its SKILL.md head (`frontmatter`) and each file by
sha256 and size (`imeta`, read by `file_refs`); the files are fetched elsewhere
(`webapp.outbound.blobs`), as this module does no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from webapp.pipeline import (
    BUNDLE_FORMAT,
    BundleError,
    Workspace,
    dump_bundle,
    excerpt,
    load_bundle,
    whole_number,
)

from .keys import event_problem

#: The largest event read or written, serialised (the editor saves skills up to 1 MiB).
MAX_EVENT_BYTES = 1024 * 1024
#: The most `a` tags an adoption list may hold.
MAX_ADOPTED = 500
#: The marker a list's `a` tag carries after its relay hint for a skill adopted but off.
DISABLED = "disabled"
#: The most files (`imeta` tags) a skill event's folder is read with.
MAX_FILE_REFS = 1000
#: The largest size an `imeta` tag may declare (a file beside SKILL.md is smaller).
MAX_FILE_SIZE = 64 * 1024 * 1024
_SHA256 = re.compile(r"[0-9a-f]{64}")
#: The `m` an `imeta` tag gives a file, by its name's ending: a table of our own, not the
#: system's MIME database, so an event says the same on every machine (a relay holding it
#: is seen as unchanged).
MIME_TYPES = {".md": "text/markdown", ".txt": "text/plain", ".py": "text/x-python",
              ".sh": "text/x-shellscript", ".js": "text/javascript", ".ts": "text/plain",
              ".json": "application/json", ".yaml": "application/yaml",
              ".yml": "application/yaml", ".toml": "application/toml", ".csv": "text/csv",
              ".html": "text/html", ".css": "text/css", ".xml": "application/xml",
              ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg",
              ".jpeg": "image/jpeg", ".gif": "image/gif", ".pdf": "application/pdf",
              ".zip": "application/zip"}
#: The agent settings a settings event carries, in the order it writes them.
SETTINGS_KEYS = ("title", "message_mode", "max_array_items", "history_labels", "model",
                 "context_window")


@dataclass(frozen=True, slots=True)
class Kinds:
    """The event kinds of one agent (a per-agent setting: no NIP assigns them)."""

    skill: int = 31123
    embedded: int = 31124
    adoption: int = 10123
    settings: int = 31120

    def of_layer(self, layer: int) -> int:
        return self.skill if layer == 1 else self.embedded


def kinds_problems(values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What is wrong with a kinds setting: the skill and settings kinds must be
    addressable (30000-39999), the list replaceable (10000-19999), and all different."""
    problems = []
    ranges = {"skill": (30000, 39999), "embedded": (30000, 39999),
              "adoption": (10000, 19999), "settings": (30000, 39999)}
    for name, (low, high) in ranges.items():
        value = values.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            problems.append((name, f"must be a kind from {low} to {high}"))
    numbers = [values.get(name) for name in ranges]
    if not problems and len(set(numbers)) != len(numbers):
        problems.append(("kinds", "must be four different kinds"))
    return problems


def coordinate(kind: int, pubkey: str, d: str) -> str:
    return f"{kind}:{pubkey}:{d}"


def agent_events(workspace: Workspace, pubkey: str, kinds: Kinds, created_at: int, *,
                 authors: Mapping[str, str] | None = None, relay_hint: str = "",
                 blob_url: Callable[[str], str] | None = None) -> list[dict[str, Any]]:
    """The unsigned events of `workspace` authored by `pubkey`: its own skills, its
    settings, then the adoption list. `authors` maps the `d_tag` of a skill adopted from
    another key to that key: such a skill is named in the list, not written. A skill's
    folder goes with it: its SKILL.md head (`frontmatter`) and an `imeta` tag per file,
    whose `url` is `blob_url(sha256)` when given."""
    authors = authors or {}
    folders = workspace.folders_by_tag
    events, adopted = [], []
    settings_d = workspace.agent.name
    adopted.append(["a", coordinate(kinds.settings, pubkey, settings_d), relay_hint])
    for skill in workspace.skills:
        author = authors.get(skill.d_tag) or pubkey
        kind = kinds.of_layer(skill.layer)
        tag = ["a", coordinate(kind, author, skill.d_tag), relay_hint]
        adopted.append(tag if skill.enabled else [*tag, DISABLED])
        if author != pubkey:
            continue
        tags = [["d", skill.d_tag], ["name", skill.name], ["description", skill.description],
                *(["t", trigger] for trigger in skill.triggers), ["layer", str(skill.layer)],
                *_folder_tags(folders.get(skill.d_tag), blob_url)]
        events.append(_event(pubkey, created_at, kind, tags, skill.content))
    settings = dump_bundle(workspace)["agent"]
    content = json.dumps({key: settings[key] for key in SETTINGS_KEYS}, ensure_ascii=False)
    events.append(_event(pubkey, created_at, kinds.settings, [["d", settings_d]], content))
    events.append(_event(pubkey, created_at, kinds.adoption, adopted, ""))
    return events


def _folder_tags(folder: Any, blob_url: Callable[[str], str] | None) -> list[list[str]]:
    """The `frontmatter` tag and one NIP-94-style `imeta` tag a file of a skill's folder."""
    if folder is None:
        return []
    tags = [["frontmatter", folder.head]] if folder.head else []
    for file in folder.files:
        ending = file.path.rsplit("/", 1)[-1].rpartition(".")[2].lower()
        mime = MIME_TYPES.get(f".{ending}", "application/octet-stream")
        url = [f"url {blob_url(file.sha256)}"] if blob_url else []
        tags.append(["imeta", *url, f"x {file.sha256}", f"size {file.size}", f"m {mime}",
                     f"path {file.path}", f"mode {'755' if file.executable else '644'}"])
    return tags


@dataclass(frozen=True, slots=True)
class FileRef:
    """A file a skill event names by its sha256 and size (an `imeta` tag), to be fetched."""

    path: str
    sha256: str
    size: int
    executable: bool
    url: str


def file_refs(event: dict[str, Any]) -> tuple[list[FileRef], list[str]]:
    """The files a skill event's `imeta` tags name, and why each tag that could not be read
    was skipped (more than `MAX_FILE_REFS` tags: none is read)."""
    tags = [tag for tag in event["tags"] if tag[:1] == ["imeta"]]
    if len(tags) > MAX_FILE_REFS:
        return [], [f"names {len(tags)} files; at most {MAX_FILE_REFS} are read"]
    refs, problems = [], []
    for tag in tags:
        fields: dict[str, str] = {}
        for part in tag[1:]:
            name, _, value = part.partition(" ") if isinstance(part, str) else ("", "", "")
            fields.setdefault(name, value)
        path, sha256 = fields.get("path", ""), fields.get("x", "")
        size = whole_number(fields.get("size", ""))
        if not path or len(path) > 1000:
            problems.append("a file without a path (imeta path)")
        elif not _SHA256.fullmatch(sha256):
            problems.append(f"file {excerpt(path)}: x is not a sha256 (64 hex digits)")
        elif size is None or size > MAX_FILE_SIZE:
            problems.append(f"file {excerpt(path)}: size is not a whole number up to "
                            f"{MAX_FILE_SIZE}")
        else:
            refs.append(FileRef(path, sha256, size, fields.get("mode") == "755",
                                fields.get("url", "")))
    return refs, problems


def _event(pubkey: str, created_at: int, kind: int, tags: list[list[str]], content: str
           ) -> dict[str, Any]:
    return {"pubkey": pubkey, "created_at": created_at, "kind": kind, "tags": tags,
            "content": content}


@dataclass(frozen=True, slots=True)
class EventProblem:
    """An event refused, or something the list names that is missing: which, and why."""

    where: str
    message: str
    #: Whether the import cannot go on (the list, or an event it needs): else the event
    #: was only skipped.
    blocking: bool = True

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass(slots=True)
class Reading:
    """What a set of events says of an agent: its workspace (skills and settings only),
    who authored each skill, the events used, and every problem met."""

    pubkey: str = ""
    workspace: Workspace | None = None
    authors: dict[str, str] = field(default_factory=dict)
    used: list[dict[str, Any]] = field(default_factory=list)
    problems: list[EventProblem] = field(default_factory=list)
    #: The files each skill's event names (`d_tag` -> references), fetched apart.
    files: dict[str, list[FileRef]] = field(default_factory=dict)
    #: The SKILL.md head each skill's event carries (`frontmatter`), by `d_tag`.
    heads: dict[str, str] = field(default_factory=dict)

    @property
    def blocked(self) -> bool:
        return self.workspace is None or any(p.blocking for p in self.problems)


def read_agent(events: Iterable[Any], pubkey: str, kinds: Kinds, *,
               agent_name: str | None = None) -> Reading:
    """The agent `pubkey`'s adoption list says, from untrusted `events`.

    Every event is verified first; an invalid one, or one of a kind not asked for, is
    reported and skipped. The newest event per address wins (NIP-01: the latest
    `created_at`, then the lowest id). A missing list, a missing or invalid event the
    list names, or a skill the bundle rules refuse blocks the import (`Reading.blocked`).
    """
    reading = Reading(pubkey)
    newest: dict[tuple[int, str, str], dict[str, Any]] = {}
    refused: dict[tuple[int, str, str], str] = {}  # why an address's event was refused
    wanted = {kinds.skill, kinds.embedded, kinds.adoption, kinds.settings}
    for event in events:
        where = _where(event)
        problem = event_problem(event)
        if problem is None and len(json.dumps(event, ensure_ascii=False)) > MAX_EVENT_BYTES:
            problem = f"is over {MAX_EVENT_BYTES // 1024} KiB"
        if problem is None and event["kind"] not in wanted:
            problem = f"has kind {event['kind']}, not one of this agent's kinds"
        if problem is None and _d_tags(event)[1]:
            problem = "has more than one d tag"
        if problem is not None:
            reading.problems.append(EventProblem(where, problem, blocking=False))
            address = _address(event)
            if address is not None:
                refused.setdefault(address, f"{where} {problem}")
            continue
        key = (event["kind"], event["pubkey"], _d_tags(event)[0])
        kept = newest.get(key)
        if kept is None or (event["created_at"], _neg(event["id"])) > (
                kept["created_at"], _neg(kept["id"])):
            newest[key] = event
    adoption = newest.get((kinds.adoption, pubkey, ""))
    if adoption is None:
        reading.problems.append(EventProblem(
            f"kind {kinds.adoption} by {pubkey[:12]}…", "no valid adoption list was found"))
        return reading
    reading.used.append(adoption)
    _read_list(reading, adoption, newest, refused, pubkey, kinds, agent_name)
    used = {event["id"] for event in reading.used}
    for event in newest.values():  # what a relay sent beyond what was asked for
        if event["id"] not in used:
            reading.problems.append(EventProblem(
                _where(event), "is not named by the adoption list: skipped", blocking=False))
    return reading


def _read_list(reading: Reading, adoption: dict[str, Any],
               newest: Mapping[tuple[int, str, str], dict[str, Any]],
               refused: Mapping[tuple[int, str, str], str], pubkey: str,
               kinds: Kinds, agent_name: str | None) -> None:
    a_tags = [tag for tag in adoption["tags"] if tag[:1] == ["a"]]
    if len(a_tags) > MAX_ADOPTED:
        reading.problems.append(EventProblem(
            "adoption list", f"names {len(a_tags)} events; at most {MAX_ADOPTED} are read"))
        return
    settings: dict[str, Any] | None = None
    skills = []
    for tag in a_tags:
        parts = tag[1].split(":", 2) if len(tag) > 1 else []
        kind = whole_number(parts[0]) if len(parts) == 3 else None
        if kind is None:
            reading.problems.append(EventProblem("adoption list", f"bad a tag {tag[:2]!r}"))
            continue
        author, d = parts[1], parts[2]
        event = newest.get((kind, author, d))
        if kind not in (kinds.skill, kinds.embedded, kinds.settings):
            reading.problems.append(EventProblem(tag[1], f"kind {kind} is not a skill's kind"))
        elif event is None:
            why = refused.get((kind, author, d))
            reading.problems.append(EventProblem(
                tag[1], f"no valid event: {why}" if why else "no valid event found"))
        elif kind == kinds.settings:
            settings = _settings(reading, event, author == pubkey)
        else:
            reading.used.append(event)
            skills.append(_skill(reading, event, kinds, enabled=DISABLED not in tag[3:]))
            if author != pubkey:
                reading.authors[d] = author
    if settings is None and not any(p.where.startswith(f"{kinds.settings}:")
                                    for p in reading.problems):
        reading.problems.append(EventProblem("adoption list", "names no settings event"))
    name = agent_name or (settings or {}).get("name") or ""
    bundle = {"format": BUNDLE_FORMAT, "agent": {**(settings or {}), "name": name},
              "skills": skills}
    try:
        reading.workspace = load_bundle(bundle)
    except BundleError as exc:
        for problem in exc.problems:
            reading.problems.append(EventProblem(_bundle_where(problem.path, skills),
                                                 problem.message))


def _settings(reading: Reading, event: dict[str, Any], own: bool) -> dict[str, Any] | None:
    if not own:
        reading.problems.append(EventProblem(_where(event), "settings by another key"))
        return None
    reading.used.append(event)
    try:
        values = json.loads(event["content"])
    except ValueError:
        values = None
    if not isinstance(values, dict) or set(values) - set(SETTINGS_KEYS):
        reading.problems.append(EventProblem(
            _where(event), f"content must be a JSON object of {', '.join(SETTINGS_KEYS)}"))
        return None
    return {**values, "name": _d_tags(event)[0]}


def _skill(reading: Reading, event: dict[str, Any], kinds: Kinds, *, enabled: bool
           ) -> dict[str, Any]:
    values: dict[str, list[str]] = {}
    for tag in event["tags"]:
        if len(tag) >= 2:
            values.setdefault(tag[0], []).append(tag[1])
    layer = 1 if event["kind"] == kinds.skill else 2
    if values.get("layer", [str(layer)]) != [str(layer)]:
        reading.problems.append(EventProblem(
            _where(event), f"says layer {values['layer'][0]!r} but has the kind of layer {layer}"))
    d_tag = _d_tags(event)[0]
    refs, skipped = file_refs(event)
    reading.problems += [EventProblem(_where(event), why, blocking=False) for why in skipped]
    if refs:
        reading.files[d_tag] = refs
    if values.get("frontmatter"):
        reading.heads[d_tag] = values["frontmatter"][0]
    return {"d_tag": d_tag, "name": values.get("name", [""])[0],
            "description": values.get("description", [""])[0], "layer": layer,
            "triggers": values.get("t", []), "enabled": enabled, "content": event["content"]}


def _d_tags(event: dict[str, Any]) -> tuple[str, bool]:
    """The event's `d` value ("" without one) and whether it has more than one."""
    values = [tag[1] if len(tag) > 1 else "" for tag in event["tags"] if tag[:1] == ["d"]]
    return (values[0] if values else ""), len(values) > 1


def _where(event: Any) -> str:
    """An event named for a report: its kind, `d` and id when it has them."""
    if not isinstance(event, dict):
        return "an event"
    ident = event.get("id")
    name = f"event {ident[:12]}…" if isinstance(ident, str) and ident else "an event"
    address = _address(event)
    if address is None:
        return name
    kind, _pubkey, d = address
    return f"{name} (kind {kind}{f', d {excerpt(d)}' if d else ''})"


def _address(event: Any) -> tuple[int, str, str] | None:
    """(kind, pubkey, d) of an event whose fields have their types, else None."""
    if not (isinstance(event, dict) and isinstance(event.get("kind"), int)
            and isinstance(event.get("pubkey"), str) and isinstance(event.get("tags"), list)
            and all(isinstance(tag, list) for tag in event["tags"])):
        return None
    ds = [tag[1] for tag in event["tags"] if tag[:1] == ["d"] and len(tag) > 1]
    return event["kind"], event["pubkey"], str(ds[0]) if ds else ""


def _bundle_where(path: str, skills: list[dict[str, Any]]) -> str:
    if path.startswith("$.skills["):
        index = int(path[len("$.skills["):].split("]", 1)[0])
        if index < len(skills):
            return f"skill {skills[index]['d_tag']!r}" + path.split("]", 1)[1]
    return "settings" + path[len("$.agent"):] if path.startswith("$.agent") else path


def _neg(hex_id: str) -> str:
    """A key that sorts the lowest id highest (NIP-01's tie-break keeps the lowest)."""
    return "".join("0123456789abcdef"[15 - int(ch, 16)] for ch in hex_id)

