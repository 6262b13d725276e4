"""Published snapshots: what the agent is given, reviewed, numbered and immutable.

A snapshot is the agent's whole workspace (settings, skills, tools, variables,
scenarios) as its canonical bundle text, the text `export` writes
(`bundle_text(dump_bundle(workspace))`), identified by the sha256 of that text: the same
workspace always gives the same digest, on SQLite and PostgreSQL alike. Snapshots are
numbered per agent from 1 and never change; publishing an older one again (`republish`,
the rollback) adds a new number with the old content.

Two reviewers publishing at once: each names the latest number they reviewed
(`expected_latest`, 0 for none); the check and the unique (agent, number) pair make
exactly one win, the other gets `PublishConflict`.

Publishing moves a label (`labels.PRODUCTION` unless another is named) to the new
snapshot in the same transaction, and writes the webhooks' `snapshot.published` event
in it too (`webhooks.enqueue`); `move_label` moves one to any snapshot (the rollback
without a new number), and `resolve` reads a reference: a number, `latest` or a label.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from webapp.bounds.lru import LRU
from webapp.pipeline import (
    FOLDERS_FORMAT,
    Workspace,
    bundle_text,
    dump_bundle,
    dumps_json,
    excerpt,
    lf_line_ends,
    load_bundle,
    parse_json,
)
from webapp.schema import api_models, models
from webapp.schema.models import utcnow
from webapp.store import context_tests

from . import rules
from .accounts import require_role
from .activity import record
from .actor import LOCAL, current_actor
from .agents import AgentRef, get_agent
from .errors import NotFound, PublishConflict, TestsFailing, ValidationError
from .folders import manifest_of
from .labels import LABEL, LATEST, NUMBER, PRODUCTION, point_at, reference
from .parsed_snapshots import parsed_snapshot
from .skills import list_skills
from .transactions import change, rows
from .webhooks import enqueue, published_data
from .workspaces import bundle_workspace, workspace_with

#: The role that may publish, and the one that may publish while context tests fail.
REVIEWER, ADMIN = "reviewer", "admin"


def canonical_text(workspace: Workspace) -> str:
    """The canonical bundle text of `workspace`: what `export` writes, byte for byte."""
    return bundle_text(dump_bundle(workspace))


def digest_of(text: str) -> str:
    """The sha256 hex digest of a canonical bundle text (its UTF-8 bytes)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def current_digest(session: Session, agent: AgentRef) -> str:
    """The digest of the agent's workspace as it is now (the draft): every file is read
    (`is_published` answers whether it is a snapshot's without)."""
    text, _, _ = _current(session, get_agent(session, agent))
    return digest_of(text)


def list_snapshots(session: Session, agent: AgentRef) -> list[models.PublishedSnapshot]:
    """The agent's snapshots, newest first."""
    row = get_agent(session, agent)
    return list(session.scalars(
        select(models.PublishedSnapshot).where(models.PublishedSnapshot.agent_id == row.id)
        .order_by(models.PublishedSnapshot.number.desc())))


def latest_snapshot(session: Session, agent: AgentRef) -> models.PublishedSnapshot | None:
    """The agent's newest snapshot, or None when it was never published."""
    row = get_agent(session, agent)
    return session.scalars(
        rows(models.PublishedSnapshot).where(models.PublishedSnapshot.agent_id == row.id)
        .order_by(models.PublishedSnapshot.number.desc()).limit(1)).first()


def get_snapshot(session: Session, agent: AgentRef, number: int | None = None
                 ) -> models.PublishedSnapshot:
    """Snapshot `number` of the agent (the latest when None); raises `NotFound`."""
    row = get_agent(session, agent)
    if number is None:
        snapshot = latest_snapshot(session, row)
        if snapshot is None:
            raise NotFound(f"no published snapshot of agent {row.name!r}")
        return snapshot
    snapshot = session.scalars(select(models.PublishedSnapshot).where(
        models.PublishedSnapshot.agent_id == row.id,
        models.PublishedSnapshot.number == number)).first()
    if snapshot is None:
        raise NotFound(f"no snapshot #{number} of agent {row.name!r}")
    return snapshot


def snapshot_workspace(snapshot: models.PublishedSnapshot) -> Workspace:
    """The pipeline `Workspace` a snapshot holds, read from its bundle text."""
    return parsed_snapshot(snapshot).workspace


def published_workspace(session: Session, agent: AgentRef, number: int | None = None
                        ) -> Workspace:
    """Snapshot `number` as a `Workspace`; when None, what the agent is given: the
    snapshot the `production` label gives (`labelled_snapshot`).

    Raises `NotFound` when there is no such snapshot (or none labelled).
    """
    if number is None:
        return snapshot_workspace(labelled_snapshot(session, agent))
    return snapshot_workspace(get_snapshot(session, agent, number))


def has_unpublished_changes(session: Session, agent: AgentRef) -> bool:
    """Whether the workspace differs from the latest snapshot (True when never published).

    Compares content keys only (`is_published`): no assembly, no file read.
    """
    row = get_agent(session, agent)
    latest = session.execute(
        select(models.PublishedSnapshot.id, models.PublishedSnapshot.number,
               models.PublishedSnapshot.digest)
        .where(models.PublishedSnapshot.agent_id == row.id)
        .order_by(models.PublishedSnapshot.number.desc()).limit(1)).first()
    if latest is None:
        return True
    return not is_published(session, row, SnapshotRef(*latest))


#: The content key of each snapshot that holds folders, by its id and digest.
_snapshot_keys: LRU[tuple[int, str], str] = LRU("snapshot content keys", 256)


def is_published(session: Session, agent: AgentRef, snapshot: SnapshotRef) -> bool:
    """Whether the agent's workspace now is `snapshot`'s content, without reading a file:
    both sides' content keys (`content_key`) are compared, the draft's made from its rows'
    manifests, the snapshot's read from its bundle once (kept by id and digest)."""
    row = get_agent(session, agent)
    skills = list_skills(session, row)
    draft = content_key(workspace_with(session, row, skills), [
        (s.d_tag, s.frontmatter, s.crlf, list(s.files), s.line_ends) for s in skills
        if s.frontmatter or s.crlf or s.line_ends or s.files])
    key = _snapshot_keys.get((snapshot.id, snapshot.digest))
    if key is None:
        text = snapshot_bundle(session, snapshot)
        # A bundle's text starts with its format (`bundle_text`): a `/1` one is read only
        # when the draft may be it.
        if f'"format": "{FOLDERS_FORMAT}"' not in text[:64]:
            return snapshot.digest == draft
        workspace = load_bundle(parse_json(text))
        key = _snapshot_keys.put((snapshot.id, snapshot.digest), content_key(
            dataclasses.replace(workspace, folders=()),
            [(f.d_tag, f.head, f.crlf, manifest_of(f.files), f.line_ends)
             for f in workspace.folders]))
    return key == draft


def content_key(workspace: Workspace, folders: list[tuple[str, str, bool, list, str]]
                ) -> str:
    """What identifies a workspace's content without its files' bytes: its digest when no
    skill has a folder (`folders`: d_tag, head, CRLF, manifest and line ends of the skills
    that have one); else the sha256 of its text without folders and the folders' manifests, each
    file named by its sha256, which stands for its bytes."""
    text = canonical_text(workspace)
    if not folders:
        return digest_of(text)
    return digest_of(text + dumps_json(folders))


@change
def publish(session: Session, agent: AgentRef, note: str, expected_latest: int,
            label: str | None = PRODUCTION, *, override: str | None = None
            ) -> models.PublishedSnapshot:
    """Publish the workspace as it is now as the next snapshot, by `current_actor()`, and
    point `label` at it (None: no label moves). Its context tests run first; the snapshot
    keeps their results.

    Raises:
        TestsFailing: a context test fails and no admin `override` note was given.
        PublishConflict: the latest snapshot is no longer `expected_latest` (0: none).
        ValidationError: the note cannot be stored, or nothing changed since the latest
            snapshot (same digest); `label` is not a label's name, or moving it needs a
            role the actor lacks (`labels.point_at`); an override by a non-admin or
            without a note.
    """
    row = get_agent(session, agent)
    require_role(session, REVIEWER, "as", "publishing")
    text, versions, workspace = _current(session, row)
    tests = context_tests.run(workspace).to_dict()
    if tests["failed"]:
        _allow_override(session, override, tests["failures"])
        tests["override"] = {"by": current_actor() or LOCAL, "note": (override or "").strip()}
    previous = latest_snapshot(session, row)
    snapshot = _append(session, row, text, versions, note, expected_latest, republished=None)
    snapshot.tests = tests
    if tests["failed"]:
        record(session, row, "publish.override", f"#{snapshot.number}",
               f"{tests['failed']} failing: {tests['override']['note']}")
    _announce(session, row, snapshot, previous, label)
    return snapshot


@change
def republish(session: Session, agent: AgentRef, number: int, note: str, expected_latest: int,
              label: str | None = PRODUCTION) -> models.PublishedSnapshot:
    """Publish snapshot `number`'s content again, as the next number, and point `label`
    at it (moving a label back, `move_label`, is the rollback without a new number).

    The draft workspace is left as it is. Raises `NotFound` for no such snapshot, and
    what `publish` raises.
    """
    row = get_agent(session, agent)
    require_role(session, REVIEWER, "as", "publishing")
    old = get_snapshot(session, row, number)
    previous = latest_snapshot(session, row)
    snapshot = _append(session, row, old.bundle, dict(old.skill_versions), note,
                       expected_latest, republished=old.number)
    _announce(session, row, snapshot, previous, label)
    return snapshot


def _announce(session: Session, agent: models.Agent, snapshot: models.PublishedSnapshot,
              previous: models.PublishedSnapshot | None, label: str | None) -> None:
    """Tell the webhooks of a publish, then point `label` at it: `snapshot.published` is
    written to the outbox before `label.moved`, so a receiver hears of the snapshot first
    (a refused label still rolls both back, with the whole publish)."""
    enqueue(session, agent, "snapshot.published",
            published_data(agent, snapshot, previous, label))
    if label is not None:
        point_at(session, agent, label, snapshot)


@change
def move_label(session: Session, agent: AgentRef, label: str, number: int
               ) -> models.PublishedSnapshot:
    """Point `label` at snapshot `number`, by `current_actor()`: to an older one, the
    rollback. Raises `NotFound` (no such snapshot) and what `labels.point_at` raises."""
    row = get_agent(session, agent)
    snapshot = get_snapshot(session, row, number)
    point_at(session, row, label, snapshot)
    return snapshot


@dataclass(frozen=True, slots=True)
class SnapshotRef:
    """A snapshot named without its bundle: what a revalidation needs (`resolve`)."""

    id: int
    number: int
    digest: str


def snapshot_number(ref: str) -> int | None:
    """The number `ref` is when it names a snapshot by number (`labels.reference`)."""
    return reference(ref).number


def resolve(session: Session, agent: AgentRef, ref: str = PRODUCTION) -> SnapshotRef:
    """The snapshot `ref` names (a number, `latest`, or a label; by default the
    `production` label, what the agent is served), read without its bundle
    (`snapshot_bundle` reads it when needed: a revalidation never does); raises `NotFound`.

    The one answer to "which snapshot does this label give": the pages, the CLI, Nostr
    and the runtime API all ask it (the API's key check reads the same label's row in
    its one query, `api_keys.authenticate`). An agent's id is taken as it is (the runtime
    API has just read it with its key)."""
    row = None if isinstance(agent, int) else get_agent(session, agent)
    agent_id = agent if row is None else row.id
    columns = select(models.PublishedSnapshot.id, models.PublishedSnapshot.number,
                     models.PublishedSnapshot.digest).where(
        models.PublishedSnapshot.agent_id == agent_id)
    read = reference(ref)
    found = None
    if read.kind == NUMBER:
        found = session.execute(columns.where(
            models.PublishedSnapshot.number == read.number)).first()
    elif read.kind == LATEST:
        found = session.execute(columns.order_by(
            models.PublishedSnapshot.number.desc()).limit(1)).first()
    elif read.kind == LABEL:  # a name no label may have never reaches SQL (nor a NUL)
        found = session.execute(columns.join(
            api_models.Label, api_models.Label.snapshot_id == models.PublishedSnapshot.id)
            .where(api_models.Label.name == ref)).first()
    if found is None:
        what = {NUMBER: f"#{ref}", LATEST: "published",
                LABEL: f"labelled {excerpt(ref)}"}.get(read.kind, excerpt(ref))
        whose = "this agent" if row is None else f"agent {row.name!r}"
        raise NotFound(f"no snapshot {what} of {whose}")
    return SnapshotRef(*found)


def labelled_snapshot(session: Session, agent: AgentRef, ref: str = PRODUCTION
                      ) -> models.PublishedSnapshot:
    """The snapshot `ref` gives (`resolve`: by default what `production` serves), whole,
    with its bundle; raises `NotFound`."""
    row = get_agent(session, agent)
    return get_snapshot(session, row, resolve(session, row, ref).number)


def labelled_or_none(session: Session, agent: AgentRef, ref: str = PRODUCTION
                     ) -> models.PublishedSnapshot | None:
    """`labelled_snapshot`, or None when the label points nowhere (the agent exists)."""
    row = get_agent(session, agent)
    try:
        return labelled_snapshot(session, row, ref)
    except NotFound:
        return None


def snapshot_bundle(session: Session, snapshot: SnapshotRef) -> str:
    """The canonical bundle text of `snapshot`."""
    return session.scalar(select(models.PublishedSnapshot.bundle).where(
        models.PublishedSnapshot.id == snapshot.id)) or ""


def _current(session: Session, agent: models.Agent
             ) -> tuple[str, dict[str, int], Workspace]:
    """The agent's canonical bundle text now, the version of each of its skills, and the
    workspace."""
    skills = list_skills(session, agent)
    workspace = bundle_workspace(session, agent, skills)
    return canonical_text(workspace), {s.d_tag: s.version for s in skills}, workspace


def _allow_override(session: Session, override: str | None,
                    failures: list[dict[str, str]]) -> None:
    """Refuse a publish with failing tests unless an admin gives a note (the local mode,
    with no account, is its own admin)."""
    if override is None:
        raise TestsFailing(failures)
    if not override.strip():
        raise ValidationError([("override", "say why it is published anyway")])
    require_role(session, ADMIN, "override", "publishing with failing context tests")


def _append(session: Session, agent: models.Agent, text: str, versions: dict[str, int],
            note: str, expected_latest: int, *, republished: int | None
            ) -> models.PublishedSnapshot:
    note = lf_line_ends(note).strip()
    problems = rules.text_problems("published_snapshots", {"note": note})
    if problems:
        raise ValidationError(problems)
    latest = latest_snapshot(session, agent)
    latest_number = latest.number if latest else 0
    if expected_latest != latest_number:
        raise PublishConflict(agent.name, expected_latest=expected_latest, latest=latest_number)
    digest = digest_of(text)
    if latest is not None and latest.digest == digest:
        raise ValidationError([("snapshot", f"nothing to publish: the content is that of "
                                            f"snapshot #{latest.number}")])
    snapshot = models.PublishedSnapshot(
        agent_id=agent.id, number=latest_number + 1, digest=digest, bundle=text,
        skill_versions=versions, note=note, published_by=current_actor(),
        published_at=utcnow(), republished=republished)
    session.add(snapshot)
    try:
        session.flush()
        again = f"again: snapshot #{republished}" if republished else ""
        record(session, agent, "publish", f"#{snapshot.number}",
               "; ".join(part for part in (again, note) if part))
    except IntegrityError:  # the same number was taken meanwhile: another publish won
        session.rollback()
        winner = latest_snapshot(session, agent)
        raise PublishConflict(agent.name, expected_latest=expected_latest,
                              latest=winner.number if winner else latest_number + 1) from None
    return snapshot
