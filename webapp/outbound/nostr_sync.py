"""An agent to relays and back: what the CLI and the web pages both do with Nostr.

`events_to_sign` writes the unsigned events of the draft or a published snapshot;
`check_signed` accepts signed events only when they are exactly those (so a browser
extension signs what the page showed, and nothing else goes out in the agent's name);
`send` publishes them; `fetch_agent` reads an agent from relays in two rounds (its
adoption list, then what the list names), and `read_file` from a file of events. What
they read is verified by `webapp.nostr.read_agent`; the store plans and applies the
import. See docs/nostr.md.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from sqlalchemy.orm import Session

from webapp import store
from webapp.agentskills import DEFAULT_LIMITS, FolderLimits
from webapp.nostr import (
    MAX_ADOPTED,
    Address,
    EventProblem,
    Kinds,
    Reading,
    agent_events,
    event_id,
    event_problem,
    read_agent,
)
from webapp.pipeline import Folder, excerpt, loads_json, whole_number
from webapp.store.agents import find_agent
from webapp.store.folders import head_problem, held_blobs
from webapp.store.nostr import NostrSettings, nostr_settings, skill_authors

from . import blobs, relays

#: The most events a file of events may hold (the list, settings, and its skills).
MAX_FILE_EVENTS = 2 * MAX_ADOPTED + 10
#: The instance's public base URL (`https://skills.example.com`), for the files' URLs.
PUBLIC_URL = "SKILL_EDITOR_PUBLIC_URL"
#: Set to 1, the instance serves an agent's files by sha256 without a key.
PUBLIC_BLOBS = "SKILL_EDITOR_PUBLIC_BLOBS"
#: The outcomes that leave an event on a relay.
HELD = (relays.ACCEPTED, relays.UNCHANGED)


@dataclass(frozen=True, slots=True)
class Prepared:
    """The unsigned events of an agent's draft or snapshot, and what they came from."""

    agent: str
    source: str
    settings: NostrSettings
    events: list[dict[str, Any]]


def events_to_sign(session: Session, agent: str, ref: str | None = store.labels.PRODUCTION,
                   *, created_at: int | None = None) -> Prepared:
    """The agent's unsigned events: of the snapshot `ref` gives (`store.resolve`: a label,
    by default `production`, what the agent is served; a number; `latest`), or of the
    draft when `ref` is None. Raises `ValidationError` when the agent has no Nostr key,
    `NotFound` when `ref` gives no snapshot."""
    settings = store.nostr.check_agent_key(session, agent)
    number = None
    if ref is None:
        workspace, source = store.load_workspace(session, agent), "the draft"
    else:
        row = store.labelled_snapshot(session, agent, ref)
        workspace = store.snapshot_workspace(row)
        number, source = row.number, f"snapshot {row.number}"
    hint = settings.relays[0] if settings.relays else ""
    when = created_at if created_at is not None else store.nostr.next_created_at(
        session, agent, int(time.time()))
    events = agent_events(workspace, settings.pubkey, settings.kinds, when,
                          authors=skill_authors(session, agent), relay_hint=hint,
                          blob_url=blob_urls(agent, number))
    return Prepared(agent, source, settings, events)


def public_blobs() -> bool:
    """Whether this instance serves agents' files by sha256 without a key."""
    return os.environ.get(PUBLIC_BLOBS) == "1"


def blob_urls(agent: str, snapshot: int | None) -> Callable[[str], str] | None:
    """What makes the public URL of a file of the agent's snapshot from its sha256, or None
    (no URL is written): for the draft, or unless the instance has a public URL and serves
    published files publicly."""
    base = os.environ.get(PUBLIC_URL, "").rstrip("/")
    if snapshot is None or not base or not public_blobs():
        return None
    where = f"{base}/public/{quote(agent, safe='')}/snapshots/{snapshot}/blobs"
    return lambda sha256: f"{where}/{sha256}"


def check_signed(prepared: Prepared, signed: Any) -> list[str]:
    """Why `signed` (untrusted JSON) is not the prepared events, each signed by the
    agent's key: one message per event wrong, none when all are right."""
    if not isinstance(signed, list) or len(signed) != len(prepared.events):
        return [f"expected a list of {len(prepared.events)} signed events"]
    problems = []
    for index, (want, got) in enumerate(zip(prepared.events, signed, strict=True)):
        problem = event_problem(got)
        if problem is None and any(got[key] != want[key] for key in
                                   ("pubkey", "kind", "tags", "content")):
            problem = "is not the event that was given to sign"
        if problem is None and got["id"] != event_id(got):
            problem = "has a wrong id"
        if problem:
            problems.append(f"event {index + 1} (kind {want['kind']}) {problem}")
    return problems


def send(urls: Sequence[str], signed: Sequence[dict[str, Any]], pubkey: str, kinds: Kinds, *,
         timeout: float = relays.TIMEOUT_SECONDS) -> list[relays.Outcome]:
    """Publish `signed` (the agent's events) to each relay, but for the events a relay
    holds already in all but their time: those are `UNCHANGED`, not sent (a relay's rate
    limit is spent on what changed). What each relay holds is asked first, and verified."""
    deadline = time.monotonic() + timeout
    asked = [{"kinds": sorted({e["kind"] for e in signed}), "authors": [pubkey]}]
    held = relays.fetch(urls, asked, limit=2 * len(signed) + 10, timeout=timeout / 2)
    to_send: dict[str, list[dict[str, Any]]] = {}
    kept: list[relays.Outcome] = []
    for answer in held:
        same = _held(answer.events)
        to_send[answer.relay] = [e for e in signed if _same_as(e) not in same]
        kept += [relays.Outcome(answer.relay, e["id"], relays.UNCHANGED,
                                "the relay holds this event already")
                 for e in signed if _same_as(e) in same]
    sent = relays.publish_each(to_send, timeout=max(deadline - time.monotonic(), 0.1))
    order = {e["id"]: i for i, e in enumerate(signed)}
    relay_order = {url: i for i, url in enumerate(urls)}
    return sorted([*sent, *kept], key=lambda o: (relay_order[o.relay], order[o.event_id]))


def _same_as(event: dict[str, Any]) -> str:
    """What an event says, its time and signature aside."""
    return json.dumps([event["pubkey"], event["kind"], event["tags"], event["content"]],
                      ensure_ascii=False)


def _held(events: Iterable[Any]) -> set[str]:
    """What the newest valid event of each address a relay sent says."""
    newest: dict[tuple[int, str, str], dict[str, Any]] = {}
    for event in events:
        if event_problem(event) is not None:
            continue
        ds = [tag[1] for tag in event["tags"] if tag[:1] == ["d"] and len(tag) > 1]
        key = (event["kind"], event["pubkey"], ds[0] if ds else "")
        if key not in newest or event["created_at"] > newest[key]["created_at"]:
            newest[key] = event
    return {_same_as(event) for event in newest.values()}


@dataclass(slots=True)
class Fetched:
    """What the relays answered, and what the events say of the agent."""

    reading: Reading
    answers: list[relays.Answer] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)


def with_folders(reading: Reading, session: Session | None = None, *,
                 limits: FolderLimits = DEFAULT_LIMITS,
                 timeout: float = blobs.TIMEOUT_SECONDS) -> Reading:
    """`reading` with each skill's folder: its SKILL.md head and the files its event names,
    fetched and verified (`blobs.fetch_folders`); a file that could not be had, or a head
    that is not one, is reported (not blocking) and left out, as the import goes on. With a
    `session`, the files the importing agent stores already are not fetched."""
    if reading.blocked or reading.workspace is None:
        return reading
    held = held_blobs(session, reading.workspace.agent.name, (
        ref.sha256 for refs in reading.files.values() for ref in refs)) if session else {}
    files, missing = blobs.fetch_folders(reading.files, limits=limits, held=held,
                                         timeout=timeout)
    for d_tag, path, why in missing:
        reading.problems.append(EventProblem(
            f"skill {excerpt(d_tag)}", f"file {excerpt(path)} is missing: {why}",
            blocking=False))
    folders = []
    for skill in reading.workspace.skills:
        head = reading.heads.get(skill.d_tag, "")
        problem = head_problem(head)
        if problem:
            reading.problems.append(EventProblem(
                f"skill {excerpt(skill.d_tag)}", f"frontmatter left out: {problem}",
                blocking=False))
            head = ""
        folder = Folder(skill.d_tag, head, False, tuple(sorted(
            files.get(skill.d_tag, ()), key=lambda file: file.path)))
        if not folder.empty:
            folders.append(folder)
    reading.workspace = dataclasses.replace(reading.workspace, folders=tuple(folders))
    return reading


def fetch_agent(where: Address, urls: Sequence[str], kinds: Kinds, *,
                agent_name: str | None = None, session: Session | None = None,
                timeout: float = relays.TIMEOUT_SECONDS) -> Fetched:
    """Read agent `where.pubkey` from `urls`: its adoption list first, then the settings
    and skills the newest valid list names (other authors' included). `timeout` is the
    whole read's: the second round has what the first left."""
    deadline = time.monotonic() + timeout
    first = relays.fetch(urls, [{"kinds": [kinds.adoption], "authors": [where.pubkey],
                                 "limit": 1}], limit=10, timeout=timeout)
    events = [event for answer in first for event in answer.events]
    listed = read_agent(events, where.pubkey, kinds)
    named = _named(listed, where.pubkey, kinds)
    filters = [{"kinds": sorted({kind for kind, _d in pairs}), "authors": [author],
                "#d": sorted({d for _kind, d in pairs})} for author, pairs in named.items()]
    count = sum(len(pairs) for pairs in named.values())
    left = max(deadline - time.monotonic(), 0.1)
    second = relays.fetch(urls, filters, limit=2 * count + 10, timeout=left) if filters else []
    events += [event for answer in second for event in answer.events]
    for answer in first:
        answer.asked = "the adoption list"
    for answer in second:
        answer.asked = "what the list names"
    reading = with_folders(read_agent(events, where.pubkey, kinds, agent_name=agent_name),
                           session)
    return Fetched(reading, [*first, *second], events)


def _named(reading: Reading, pubkey: str, kinds: Kinds) -> dict[str, set[tuple[int, str]]]:
    """The addresses the newest valid adoption list names, by author."""
    named: dict[str, set[tuple[int, str]]] = {}
    lists = [event for event in reading.used if event["kind"] == kinds.adoption]
    for tag in lists[0]["tags"][:MAX_ADOPTED + 1] if lists else []:
        parts = tag[1].split(":", 2) if tag[:1] == ["a"] and len(tag) > 1 else []
        kind = whole_number(parts[0]) if len(parts) == 3 else None
        if kind is not None and len(parts[1]) == 64:
            named.setdefault(parts[1], set()).add((kind, parts[2]))
    return named


def read_file(lines: Iterable[str], pubkey: str | None, kinds: Kinds, *,
              agent_name: str | None = None, session: Session | None = None) -> Reading:
    """Read an agent from a file of events, one JSON per line (as `export` writes): the
    agent is `pubkey`, or the author of the file's one adoption list."""
    events: list[Any] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if len(events) >= MAX_FILE_EVENTS:
            raise ValueError(f"line {number}: more than {MAX_FILE_EVENTS} events")
        try:
            events.append(loads_json(line))
        except ValueError:
            raise ValueError(f"line {number}: not a JSON event") from None
    if pubkey is None:
        authors = {event.get("pubkey") for event in events
                   if isinstance(event, dict) and event.get("kind") == kinds.adoption}
        if len(authors) != 1:
            raise ValueError(f"the file holds {len(authors)} adoption lists' authors: "
                             "say which with --npub")
        pubkey = str(authors.pop())
    return with_folders(read_agent(events, pubkey, kinds, agent_name=agent_name), session)


def import_kinds(session: Session, name: str | None) -> Kinds:
    """The kinds to read with: the existing agent's, else the defaults."""
    row = find_agent(session, name) if name else None
    return nostr_settings(session, row.name).kinds if row is not None else Kinds()

