"""An agent on Nostr: its identity, relays and kinds, and imports from relays.

The rules of the Nostr settings live here (a relay URL, the kinds, the key), for the
settings form and the CLI alike. An import is planned first (`plan_import`: each skill
new, changed, unchanged or no longer adopted, and the settings that change) and applied
as one change (`apply_import`): a revision per changed skill, and nothing moved to the
trash unless the author named it. See docs/nostr.md.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import update
from sqlalchemy.orm import Session

from webapp.agentskills import SkillFolder
from webapp.nostr import Kinds, NostrKeyError, kinds_problems, public_key_hex
from webapp.pipeline import Folder, Skill, Workspace, dump_bundle, dump_skill, excerpt
from webapp.schema import models
from webapp.schema.models import utcnow

from . import rules
from .accounts import require_role
from .activity import list_activity, record
from .agents import AgentRef, agent_fields, find_agent, get_agent, insert_agent, taken_agent
from .convert import folder_fields, skill_fields, skill_of
from .errors import AlreadyExists, ValidationError
from .folders import folder_input, manifest_of
from .publish import REVIEWER
from .skills import Stale, conflict, new_skill, write_skill
from .transactions import change, rows

#: The most relays an agent lists (each is written to and read from in parallel).
MAX_RELAYS = 8
URL_LENGTH = 300
NEW, CHANGED, UNCHANGED, DROPPED = "new", "changed", "unchanged", "no longer adopted"
#: The settings an import carries (the rest of an agent's settings stay the editor's).
SETTINGS = ("title", "message_mode", "max_array_items", "history_labels", "model",
            "context_window")


@dataclass(frozen=True, slots=True)
class NostrSettings:
    """An agent's Nostr identity, relays and kinds."""

    pubkey: str = ""
    relays: tuple[str, ...] = ()
    kinds: Kinds = Kinds()


def relay_url_problem(url: str) -> str | None:
    """Why `url` cannot be a relay's (None: it can): `wss://` with a host, or `ws://` to
    a loopback address only (a relay started on this machine, as the tests do)."""
    if len(url) > URL_LENGTH or not url.isascii() or any(c.isspace() for c in url):
        return f"must be a wss:// URL of at most {URL_LENGTH} characters, no spaces"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (a port out of range raises here)
    except ValueError:
        return "is not a URL"
    if parts.scheme not in ("wss", "ws") or not parts.hostname:
        return "must start with wss:// and name a host"
    if parts.username or parts.password or parts.fragment:
        return "must not hold a user name, password or fragment"
    if parts.scheme == "ws" and not is_loopback(parts.hostname):
        return "ws:// is only for a relay on this machine (127.0.0.1): use wss://"
    return None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def settings_of(row: models.Agent) -> NostrSettings:
    kinds = Kinds(**row.nostr_kinds) if row.nostr_kinds else Kinds()
    return NostrSettings(row.nostr_pubkey or "", tuple(row.nostr_relays or ()), kinds)


def nostr_settings(session: Session, agent: AgentRef) -> NostrSettings:
    """The agent's Nostr settings (defaults when it has none)."""
    return settings_of(get_agent(session, agent))


def relays_problems(urls: list[str]) -> list[tuple[str, str]]:
    """What is wrong with a list of relay URLs (`relays`, each problem on its own)."""
    problems = []
    if len(urls) > MAX_RELAYS:
        problems.append(("relays", f"at most {MAX_RELAYS} relays"))
    for url in urls[:MAX_RELAYS]:
        problem = relay_url_problem(url)
        if problem:
            problems.append(("relays", f"{excerpt(url)} {problem}"))
    if len(set(urls)) != len(urls):
        problems.append(("relays", "lists a relay twice"))
    return problems


def check_relays(urls: list[str]) -> list[str]:
    """The relay URLs, stripped, blank lines dropped; raises `ValidationError` when one
    may not be used (`relays_problems`)."""
    urls = [url.strip() for url in urls if url.strip()]
    problems = relays_problems(urls)
    if problems:
        raise ValidationError(problems)
    return urls


def read_settings(key: str, relays: list[str], kinds: Mapping[str, Any]) -> NostrSettings:
    """Settings from what a user gave (a key as npub or hex, or empty; relay URLs; kinds);
    raises `ValidationError` naming each bad field (`npub`, `relays`, a kind)."""
    problems: list[tuple[str, str]] = []
    pubkey = ""
    if key.strip():
        try:
            pubkey = public_key_hex(key)
        except NostrKeyError as exc:
            problems.append(("npub", str(exc)))
    urls = [url.strip() for url in relays if url.strip()]
    problems += relays_problems(urls)
    problems += kinds_problems(kinds)
    if problems:
        raise ValidationError(problems)
    return NostrSettings(pubkey, tuple(urls), Kinds(**{k: int(kinds[k]) for k in
                                                        ("skill", "embedded", "adoption",
                                                         "settings")}))


@change
def set_nostr(session: Session, agent: AgentRef, settings: NostrSettings) -> models.Agent:
    """Save the agent's Nostr settings (checked with `read_settings`)."""
    row = get_agent(session, agent)
    row.nostr_pubkey = settings.pubkey or None
    row.nostr_relays = list(settings.relays)
    row.nostr_kinds = None if settings.kinds == Kinds() else {
        "skill": settings.kinds.skill, "embedded": settings.kinds.embedded,
        "adoption": settings.kinds.adoption, "settings": settings.kinds.settings}
    session.flush()
    record(session, row, "agent.nostr", row.name,
           f"key {settings.pubkey[:12] or 'none'}; relays: {len(settings.relays)}")
    return row


def skill_authors(session: Session, agent: AgentRef) -> dict[str, str]:
    """The `d_tag` of each skill the agent adopted from another Nostr key, with that key."""
    row = get_agent(session, agent)
    return {skill.d_tag: skill.nostr_author for skill in row.skills
            if skill.nostr_author and skill.deleted_at is None}


@dataclass(frozen=True, slots=True)
class SkillChange:
    """What an import does to one skill."""

    d_tag: str
    status: str
    before: Skill | None
    after: Skill | None
    author: str = ""


@dataclass(frozen=True, slots=True)
class ImportPlan:
    """What importing a workspace read from Nostr would change in agent `name`."""

    name: str
    exists: bool
    settings: list[tuple[str, Any, Any]] = field(default_factory=list)
    skills: list[SkillChange] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for change_ in self.skills if change_.status == status)

    @property
    def changes_nothing(self) -> bool:
        return not self.settings and all(c.status == UNCHANGED for c in self.skills)


def plan_import(session: Session, workspace: Workspace, authors: Mapping[str, str]
                ) -> ImportPlan:
    """What `apply_import` of `workspace` would change; `workspace.agent.name` names the
    agent (new if none has that name). Raises `ValidationError` for what the store would
    refuse (the bundle rules), and `AlreadyExists` for a name that reads as a taken one."""
    name = workspace.agent.name
    # The folders are checked when written (`folder_input`); the bundle rules see the skills.
    rules.check_bundle(rules.normalized_bundle(dump_bundle(replace(workspace, folders=()))))
    row = find_agent(session, name)
    if row is None:
        lookalike = taken_agent(session, name)
        if lookalike is not None:
            raise AlreadyExists([("agent_name", f"an agent named {lookalike.name!r} already "
                                  f"exists, which reads as {name!r}: use another name")])
        return ImportPlan(name, False, [], [SkillChange(s.d_tag, NEW, None, s,
                                                        authors.get(s.d_tag, ""))
                                            for s in workspace.skills])
    current = {s.d_tag: s for s in row.skills if s.deleted_at is None}
    incoming = {s.d_tag for s in workspace.skills}
    changes = []
    for skill in workspace.skills:
        before = current.get(skill.d_tag)
        after_fields, author = dump_skill(skill), authors.get(skill.d_tag, "")
        if before is None:
            status = NEW
        elif (skill_fields(before) != after_fields or (before.nostr_author or "") != author
              or _folder_changed(before, workspace.folders_by_tag.get(skill.d_tag))):
            status = CHANGED
        else:
            status = UNCHANGED
        changes.append(SkillChange(skill.d_tag, status, before and skill_of(before), skill,
                                   author))
    changes += [SkillChange(d_tag, DROPPED, skill_of(s), None, s.nostr_author or "")
                for d_tag, s in current.items() if d_tag not in incoming]
    source = dump_bundle(workspace)["agent"]
    settings = [(key, getattr(row, key), source[key]) for key in SETTINGS
                if getattr(row, key) != source[key]]
    return ImportPlan(name, True, settings, changes)


@change
def apply_import(session: Session, workspace: Workspace, authors: Mapping[str, str], *,
                 pubkey: str, relays: Collection[str] = (),
                 trash: Collection[str] = ()) -> tuple[models.Agent, ImportPlan]:
    """Import `workspace` (read from Nostr events of `pubkey`) into its agent, as one
    change: the agent is created if new; each new or changed skill gets a revision, in
    the list's order; a skill no longer adopted stays, after them, unless its `d_tag` is
    in `trash`. Tools, bindings, scenarios and the log are not touched."""
    plan = plan_import(session, workspace, authors)
    source = dump_bundle(workspace)["agent"]
    row = find_agent(session, plan.name)
    if row is None:
        row = insert_agent(session, agent_fields(plan.name, *(source[k] for k in SETTINGS)))
    else:
        for key, _old, new in plan.settings:
            setattr(row, key, new)
    row.nostr_pubkey = pubkey
    if relays:
        row.nostr_relays = list(relays)
    by_tag = {s.d_tag: s for s in session.scalars(
        rows(models.Skill).where(models.Skill.agent_id == row.id))}
    note = f"imported from Nostr ({pubkey[:12]}…)"
    for position, skill in enumerate(workspace.skills):
        fields = dump_skill(skill)
        folder = workspace.folders_by_tag.get(skill.d_tag)
        if folder is not None:
            fields.update(folder_input(session, row, SkillFolder(
                skill, folder.head, folder.crlf, folder.files)))
        existing = by_tag.get(skill.d_tag)
        if existing is None:
            existing = new_skill(session, row, fields, position=position, note=note)
        elif existing.deleted_at is not None or {**skill_fields(existing),
                                                 **folder_fields(existing)} != {
                **skill_fields(existing), **folder_fields(existing), **fields}:
            try:
                write_skill(session, existing, existing.version, fields, note=note,
                            restore=existing.deleted_at is not None)
            except Stale:  # saved by someone else during the import
                raise conflict(session, existing.id, existing.d_tag, existing.version,
                               fields) from None
        session.execute(update(models.Skill).where(models.Skill.id == existing.id).values(
            position=position, nostr_author=authors.get(skill.d_tag) or None))
    position = len(workspace.skills)
    for change_ in plan.skills:
        if change_.status != DROPPED:
            continue
        values: dict[str, Any] = {"position": position}
        if change_.d_tag in trash:
            values["deleted_at"] = utcnow()
        session.execute(update(models.Skill).where(models.Skill.id == by_tag[
            change_.d_tag].id).values(**values))
        position += 1
    session.flush()
    record(session, row, "nostr.import", row.name,
           f"from {pubkey[:12]}…; new: {plan.count(NEW)}, changed: {plan.count(CHANGED)}, "
           f"no longer adopted: {plan.count(DROPPED)} ({len(set(trash))} to the trash)")
    session.expire_all()
    return row, plan


def _folder_changed(row: models.Skill, folder: Folder | None) -> bool:
    """Whether an imported folder differs from the skill's (no folder read: it stays)."""
    if folder is None:
        return False
    return (row.frontmatter, list(row.files)) != (folder.head, manifest_of(folder.files))


@change
def record_publish(session: Session, agent: AgentRef, source: str, relays: int,
                   accepted: int, total: int) -> None:
    """Say in the activity that `source` went to the relays, and how many took it."""
    row = get_agent(session, agent)
    record(session, row, "nostr.publish", source,
           f"{accepted} of {total} event copies accepted by {relays} relays")


def next_created_at(session: Session, agent: AgentRef, now: int) -> int:
    """The time to stamp an agent's events with: now, but after its last publish to Nostr
    from here, so a relay never sees two versions of an address with the same time (a
    tie keeps the lowest id, which may be the older event)."""
    row = get_agent(session, agent)
    last = list_activity(session, agent=row, kind="nostr.publish", limit=1)
    return max(now, int(last[0].at.timestamp()) + 1) if last else now


def check_agent_key(session: Session, agent: AgentRef) -> NostrSettings:
    """The agent's settings, refusing with `ValidationError` when it has no key."""
    settings = nostr_settings(session, agent)
    if not settings.pubkey:
        raise ValidationError([("npub", "the agent has no Nostr key: set its npub in its "
                                        "Settings (or skill-editor nostr key)")])
    return settings


def may_publish(session: Session) -> None:
    """Refuse (`ValidationError`) an actor who may not publish: sending an agent's events
    to relays is publishing it, and needs a reviewer, as `publish` does."""
    require_role(session, REVIEWER, "as", "publishing to Nostr")
