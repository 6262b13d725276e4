"""A snapshot's skill folders for a runtime to mirror: each skill's files listed, each
file served by path and by sha256, a skill's folder as a zip (the routes are `api`'s, and
the snapshot page's download of a folder, `snapshots.skill_zip`).

What a snapshot publishes is `store.published_folders`; its folders' manifests (SKILL.md
as it exports, and each file's path, size, sha256 and mode) are kept per snapshot
(`_manifests`), so a runtime fetching 400 files parses the snapshot's bundle once, and
each file's bytes are one indexed read of the agent's files (stored once by sha256).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from webapp import agentskills, store
from webapp.agentskills import SKILL_FILE, SkillFolder, encode_skill_md
from webapp.bounds.lru import LRU
from webapp.pipeline import Skill, excerpt
from webapp.store.folders import files_of, manifest_of

#: A sha256 as the API names a file: 64 lowercase hexadecimal digits.
SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class PublishedSkill:
    """One skill's folder in a snapshot, without its files' bytes: its folder's name (as a
    zip names it), SKILL.md as it exports, and its files' manifest (path, sha256, size,
    executable)."""

    skill: Skill
    head: str
    crlf: bool
    folder: str
    manifest: tuple[dict[str, Any], ...]

    @property
    def skill_md(self) -> bytes:
        return encode_skill_md(self.skill, self.head, self.crlf)


#: The skills' folders of the snapshots served lately, by snapshot (id and digest).
_manifests: LRU[tuple[int, str], dict[str, PublishedSkill]] = LRU(
    "snapshot folder manifests", 32)


def published_skill(session: Session, agent_id: int, found: store.SnapshotRef,
                    d_tag: str) -> PublishedSkill:
    """The skill `d_tag` of the snapshot `found`; raises `store.NotFound`."""
    published = published_skills(session, agent_id, found).get(d_tag)
    if published is None:
        raise store.NotFound(f"snapshot #{found.number} has no skill {excerpt(d_tag)}")
    return published


def holds_file(session: Session, agent_id: int, found: store.SnapshotRef, sha256: str
               ) -> bool:
    """Whether a skill folder of the snapshot `found` holds a file whose sha256 is `sha256`."""
    return any(entry["sha256"] == sha256
               for published in published_skills(session, agent_id, found).values()
               for entry in published.manifest)


def published_skills(session: Session, agent_id: int, found: store.SnapshotRef
                     ) -> dict[str, PublishedSkill]:
    """Every skill's folder of the snapshot `found`, by `d_tag` (kept in `_manifests`)."""
    key = (found.id, found.digest)
    skills = _manifests.get(key)
    if skills is None:
        snapshot = store.get_snapshot(session, agent_id, found.number)
        folders = store.published_folders(session, snapshot)
        names = agentskills.folder_names([folder.skill for folder in folders])
        skills = _manifests.put(key, {
            folder.skill.d_tag: PublishedSkill(
                folder.skill, folder.head, folder.crlf, name,
                tuple(manifest_of(folder.files)))
            for name, folder in zip(names, folders, strict=True)})
    return skills


def file_list(published: PublishedSkill, file_url: Any, blob_url: Any) -> list[dict[str, Any]]:
    """Every file of the folder, SKILL.md first: path, size, sha256, executable, its address
    by path (`file_url(path)`) and by sha256 (`blob_url(sha256)`; none for SKILL.md, which
    is made from the skill)."""
    skill_md = published.skill_md
    files = [{"path": SKILL_FILE, "size": len(skill_md),
              "sha256": hashlib.sha256(skill_md).hexdigest(), "executable": False,
              "url": file_url(SKILL_FILE), "blob_url": None}]
    files += [{"path": entry["path"], "size": entry["size"], "sha256": entry["sha256"],
               "executable": bool(entry.get("executable")), "url": file_url(entry["path"]),
               "blob_url": blob_url(entry["sha256"])} for entry in published.manifest]
    return files


def file_bytes(session: Session, agent_id: int, published: PublishedSkill, path: str
               ) -> tuple[bytes, str, bool]:
    """`(bytes, sha256, executable)` of the folder's file at `path`; raises `store.NotFound`."""
    if path == SKILL_FILE:
        data = published.skill_md
        return data, hashlib.sha256(data).hexdigest(), False
    entry = next((e for e in published.manifest if e["path"] == path), None)
    if entry is None:
        raise store.NotFound(f"skill {excerpt(published.skill.d_tag)} has no file "
                             f"{excerpt(path)} in this snapshot")
    return (store.get_blob(session, agent_id, entry["sha256"]), entry["sha256"],
            bool(entry.get("executable")))


def folder_zip(session: Session, agent_id: int, published: PublishedSkill,
               saved_at: Any) -> tuple[str, bytes]:
    """`(file name, bytes)` of a zip of the skill's folder as the snapshot publishes it."""
    files = files_of(session, agent_id, list(published.manifest))
    return agentskills.zip_skill(SkillFolder(published.skill, published.head, published.crlf,
                                             files, saved_at=saved_at))
