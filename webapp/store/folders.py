"""A skill's Agent Skills folder, kept with it: its SKILL.md's head and line ends, and the
files beside SKILL.md, versioned with the skill.

A skill row and each revision hold the folder's manifest (`files`: path, sha256, size, and
whether the file is executable); the bytes are `SkillBlob`s, stored once per agent by their
sha256 and never deleted while the agent lives, so a revision restored brings its files
back. Every write of a file set obeys the path rule and the deployment's limits
(`folder_limits`) of `agentskills.file_set_problems` (`check_files`), whatever path it
comes by: an import, the file editor, a revision restored; the bytes an agent stores obey
its agent-wide limit (`store_blobs`). A file saved or deleted is a new version of its skill,
optimistically locked as any save is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from webapp.agentskills import (
    DEFAULT_LIMITS,
    FolderLimits,
    SkillFile,
    SkillFolder,
    agent_bytes_problem,
    file_set_problems,
    parse_head,
    path_problem,
)
from webapp.agentskills.frontmatter import SkillMdError, split_head
from webapp.pipeline import FOLDERS_FORMAT, Folder, Skill, excerpt, load_bundle, parse_json
from webapp.schema import models

from .activity import record
from .agents import AgentRef, find_agent, get_agent
from .convert import agent_of, folder_fields, skill_of
from .errors import NotFound, ValidationError
from .skills import get_skill, list_skills, save
from .transactions import change


def folder_limits(session: Session) -> FolderLimits:
    """The limits on skill folders of the deployment `session` works for (its sessionmaker
    put them in its `info`: `db.make_sessionmaker`), else the defaults."""
    return session.info.get(FolderLimits, DEFAULT_LIMITS)


def manifest_of(files: Iterable[SkillFile]) -> list[dict[str, Any]]:
    """The manifest a row keeps of `files`, in path order."""
    manifest = []
    for file in sorted(files, key=lambda f: f.path):
        entry: dict[str, Any] = {"path": file.path, "sha256": file.sha256, "size": file.size}
        if file.executable:
            entry["executable"] = True
        manifest.append(entry)
    return manifest


def check_files(session: Session, files: Sequence[SkillFile]) -> None:
    """Raise `ValidationError` (each problem under `files/<path>`) unless `files` may be a
    skill's folder: the path rule and the deployment's limits
    (`agentskills.file_set_problems`)."""
    check_manifest(session, [{"path": file.path, "size": file.size} for file in files])


def check_manifest(session: Session, manifest: Sequence[dict[str, Any]]) -> None:
    """`check_files` for the files a manifest names (a revision restored: its bytes are
    stored already)."""
    problems = file_set_problems(((entry["path"], entry["size"]) for entry in manifest),
                                 folder_limits(session))
    if problems:
        raise ValidationError([(f"files/{path}", message) for path, message in problems])


def folder_input(session: Session, agent: models.Agent, folder: SkillFolder) -> dict[str, Any]:
    """The folder columns of a write of `folder` (checked; its files' bytes stored)."""
    check_files(session, folder.files)
    store_blobs(session, agent, folder.files)
    return {"frontmatter": folder.head, "crlf": folder.crlf, "line_ends": folder.line_ends,
            "files": manifest_of(folder.files)}


def store_blobs(session: Session, agent: models.Agent, files: Iterable[SkillFile]) -> None:
    """Keep the bytes of `files` for `agent`, those it does not hold yet; raises
    `ValidationError` when they would pass the agent's limit on stored bytes."""
    wanted = {file.sha256: file for file in files}
    if not wanted:
        return
    held = set(session.scalars(select(models.SkillBlob.sha256).where(
        models.SkillBlob.agent_id == agent.id, models.SkillBlob.sha256.in_(wanted))))
    adding = [file for sha256, file in wanted.items() if sha256 not in held]
    if not adding:
        return
    stored = session.scalar(select(func.coalesce(func.sum(models.SkillBlob.size), 0)).where(
        models.SkillBlob.agent_id == agent.id)) or 0
    problem = agent_bytes_problem(stored, sum(file.size for file in adding),
                                  folder_limits(session))
    if problem:
        raise ValidationError([("files", problem)])
    session.add_all(models.SkillBlob(agent_id=agent.id, sha256=file.sha256, size=file.size,
                                     data=file.data) for file in adding)
    session.flush()


def files_of(session: Session, agent_id: int, manifest: Sequence[dict[str, Any]]
             ) -> tuple[SkillFile, ...]:
    """The files a manifest names, with their bytes."""
    if not manifest:
        return ()
    digests = {entry["sha256"] for entry in manifest}
    data = dict(session.execute(select(models.SkillBlob.sha256, models.SkillBlob.data).where(
        models.SkillBlob.agent_id == agent_id, models.SkillBlob.sha256.in_(digests))).all())
    return tuple(SkillFile(entry["path"], bytes(data[entry["sha256"]]),
                           bool(entry.get("executable"))) for entry in manifest)


def bundle_folders(session: Session, agent_id: int,
                   rows: Sequence[models.Skill | models.SkillRevision]) -> tuple[Folder, ...]:
    """The folders of skill rows (or revisions) that hold more than their text, their files
    read in one query: what a `skill-workspace/2` bundle carries (`pipeline.Folder`)."""
    wanted = {entry["sha256"] for row in rows for entry in row.files}
    data = dict(session.execute(select(models.SkillBlob.sha256, models.SkillBlob.data).where(
        models.SkillBlob.agent_id == agent_id, models.SkillBlob.sha256.in_(wanted))).all()
                ) if wanted else {}
    folders = (Folder(row.d_tag, row.frontmatter, row.crlf, tuple(
        SkillFile(e["path"], bytes(data[e["sha256"]]), bool(e.get("executable")))
        for e in row.files), row.line_ends) for row in rows)
    return tuple(folder for folder in folders if not folder.empty)


def head_problem(head: str) -> str | None:
    """Why `head` cannot be kept as a SKILL.md's head as written (a bundle's `frontmatter`),
    or None: it must be a whole head alone (`---`, YAML, `---`, maybe a blank line)."""
    if not head:
        return None
    try:
        whole, rest = split_head(head)
        parse_head(head)
    except SkillMdError as exc:
        return "; ".join(f"{where}: {why}" for where, why in exc.problems)
    if whole != head or rest:
        return "must be a SKILL.md head alone: a line '---', YAML, a line '---'"
    return None


def get_blob(session: Session, agent_id: int, sha256: str) -> bytes:
    """The bytes of the agent's file whose sha256 is `sha256`; raises `NotFound`."""
    data = session.scalar(select(models.SkillBlob.data).where(
        models.SkillBlob.agent_id == agent_id, models.SkillBlob.sha256 == sha256))
    if data is None:
        raise NotFound(f"no file of this agent has the sha256 {excerpt(sha256)}")
    return bytes(data)


def held_blobs(session: Session, agent_name: str, digests: Iterable[str]
               ) -> dict[str, bytes]:
    """The bytes the agent named `agent_name` stores of `digests` (sha256s), by sha256; none
    when there is no such agent (an import names files its agent may hold already)."""
    row = find_agent(session, agent_name)
    wanted = sorted(set(digests))
    if row is None or not wanted:
        return {}
    held: dict[str, bytes] = {}
    for start in range(0, len(wanted), 500):  # a bounded IN list a query
        held.update((sha256, bytes(data)) for sha256, data in session.execute(
            select(models.SkillBlob.sha256, models.SkillBlob.data).where(
                models.SkillBlob.agent_id == row.id,
                models.SkillBlob.sha256.in_(wanted[start:start + 500]))))
    return held


def folder_of(session: Session, row: models.Skill | models.SkillRevision) -> SkillFolder:
    """The Agent Skills folder of a skill row or a revision, its files read, dated when that
    version was saved (a skill's `updated_at` is its current version's save)."""
    if isinstance(row, models.Skill):
        agent_id, saved_at = row.agent_id, row.updated_at
    else:
        agent_id, saved_at = row.skill.agent_id, row.saved_at
    return SkillFolder(skill_of(row), row.frontmatter, row.crlf,
                       files_of(session, agent_id, row.files), saved_at=saved_at,
                       line_ends=row.line_ends)


def export_folders(session: Session, agent: AgentRef) -> list[SkillFolder]:
    """Every live skill of the agent as its folder, in adoption order."""
    return [folder_of(session, row) for row in list_skills(session, agent)]


def get_file(session: Session, agent: AgentRef, d_tag: str, path: str) -> SkillFile:
    """One file of a skill's folder; raises `NotFound`."""
    row = get_skill(session, agent, d_tag)
    entry = next((e for e in row.files if e["path"] == path), None)
    if entry is None:
        raise NotFound(f"skill {excerpt(d_tag)} has no file {excerpt(path)}")
    return files_of(session, row.agent_id, [entry])[0]


@change
def save_file(session: Session, agent: AgentRef, d_tag: str, path: str, data: bytes, *,
              expected_version: int, executable: bool | None = None) -> models.Skill:
    """Add a file to a skill's folder, or replace its bytes (`executable` None keeps the
    file's flag): a new version of the skill. Raises `Conflict`, `ValidationError`."""
    agent_row = get_agent(session, agent)
    row = get_skill(session, agent_row, d_tag)
    problem = path_problem(path)
    if problem:
        raise ValidationError([("path", problem)])
    files = {f.path: f for f in files_of(session, row.agent_id, row.files)}
    old = files.get(path)
    flag = (old.executable if old is not None else False) if executable is None else executable
    files[path] = SkillFile(path, data, flag)
    verb = "added" if old is None else "changed"
    return _write_files(session, agent_row, row, expected_version, list(files.values()),
                        f"file {path} {verb}")


@change
def delete_file(session: Session, agent: AgentRef, d_tag: str, path: str, *,
                expected_version: int) -> models.Skill:
    """Remove a file from a skill's folder: a new version. Raises `NotFound`, `Conflict`."""
    agent_row = get_agent(session, agent)
    row = get_skill(session, agent_row, d_tag)
    files = files_of(session, row.agent_id, row.files)
    if not any(f.path == path for f in files):
        raise NotFound(f"skill {excerpt(d_tag)} has no file {excerpt(path)}")
    return _write_files(session, agent_row, row, expected_version,
                        [f for f in files if f.path != path], f"file {path} deleted")


def _write_files(session: Session, agent: models.Agent, row: models.Skill,
                 expected_version: int, files: list[SkillFile], note: str) -> models.Skill:
    check_files(session, files)
    store_blobs(session, agent, files)
    fields = {**folder_fields(row), "files": manifest_of(files)}
    saved = save(session, row, expected_version, fields, note, {"files": note})
    if saved.version != expected_version:
        record(session, agent, "skill.save", row.d_tag, f"version {saved.version}: {note}")
    return saved


def exported_names(session: Session, agent: AgentRef, *, besides: str | None = None
                   ) -> dict[str, str]:
    """The name each live skill of the agent exports -> its d_tag, in adoption order (a name
    two skills export: the later one's), leaving out the skill `besides`. Two columns read,
    nothing parsed: what a keystroke's lint needs of the other skills."""
    row = get_agent(session, agent)
    query = (select(models.Skill.exported_name, models.Skill.d_tag)
             .where(models.Skill.agent_id == row.id, models.Skill.deleted_at.is_(None))
             .order_by(models.Skill.position, models.Skill.id))
    return {name: d_tag for name, d_tag in session.execute(query) if d_tag != besides}


@dataclass(frozen=True)
class FolderFacts:
    """What the lint of a skill's folder reads besides the skill (`agentskills.lint_skill`):
    its SKILL.md's head, its files' paths, its agent's target clients, the name each
    other live skill of the agent exports (name -> d_tag), and for the catalogue's budget
    each live skill's listing in adoption order (`(d_tag, listing)`, None for this skill's:
    the draft's is computed) and the agent's context window."""

    head: str
    paths: tuple[str, ...]
    clients: tuple[str, ...]
    others: dict[str, str]
    listings: tuple[tuple[str, dict[str, Any] | None], ...] = ()
    window: int = 0


def folder_facts(session: Session, agent: AgentRef, d_tag: str) -> FolderFacts:
    """The `FolderFacts` of a live skill: two columns of each other skill read, no head."""
    agent_row = get_agent(session, agent)
    row = get_skill(session, agent_row, d_tag)
    query = (select(models.Skill.d_tag, models.Skill.exported_name, models.Skill.listing)
             .where(models.Skill.agent_id == agent_row.id, models.Skill.deleted_at.is_(None))
             .order_by(models.Skill.position, models.Skill.id))
    skills = session.execute(query).all()
    others = {name: tag for tag, name, _ in skills if tag != row.d_tag}
    listings = tuple((tag, None if tag == row.d_tag else listing)
                     for tag, _, listing in skills)
    return FolderFacts(row.frontmatter, tuple(e["path"] for e in row.files),
                       tuple(agent_row.skill_clients), others, listings,
                       agent_of(agent_row).window)


def heads(session: Session, agent: AgentRef) -> list[tuple[Skill, str]]:
    """Every live skill of the agent with its SKILL.md head, in adoption order (what a
    client's catalogue lists: `agentskills.catalogue`)."""
    return [(skill_of(row), row.frontmatter) for row in list_skills(session, agent)]


def published_folders(session: Session, snapshot: models.PublishedSnapshot) -> list[SkillFolder]:
    """The skill folders a snapshot publishes, in its bundle's order: each skill as the
    bundle holds it, with its SKILL.md head, line ends and files. A `skill-workspace/2`
    snapshot holds them itself; for one published as `/1` they are those of the version the
    snapshot recorded (`skill_versions`), and a skill whose revision is gone (deleted since)
    comes with its text alone. What a runtime mirrors (the API's files, MCP resources) reads
    this."""
    data = parse_json(snapshot.bundle)
    workspace = load_bundle(data)
    if data.get("format") == FOLDERS_FORMAT:
        folders = workspace.folders_by_tag
        return [SkillFolder(skill, folder.head, folder.crlf, folder.files,
                            saved_at=snapshot.published_at, line_ends=folder.line_ends)
                if (folder := folders.get(skill.d_tag)) is not None
                else SkillFolder(skill, saved_at=snapshot.published_at)
                for skill in workspace.skills]
    versions = snapshot.skill_versions or {}
    revisions = {(row.d_tag, row.version): row for row in session.scalars(
        select(models.SkillRevision).join(models.Skill).where(
            models.Skill.agent_id == snapshot.agent_id,
            models.SkillRevision.d_tag.in_(list(versions))))}
    folders = []
    for skill in workspace.skills:
        row = revisions.get((skill.d_tag, versions.get(skill.d_tag)))
        if row is None:
            folders.append(SkillFolder(skill, saved_at=snapshot.published_at))
        else:
            folders.append(SkillFolder(skill, row.frontmatter, row.crlf,
                                       files_of(session, snapshot.agent_id, row.files),
                                       saved_at=row.saved_at, line_ends=row.line_ends))
    return folders
