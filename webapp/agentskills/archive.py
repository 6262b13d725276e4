"""Zips in and out: an upload's entries read from a zip, and skill folders written as one.

Reading lists the zip's directory as `folders.Entry`s and lets `folders.read_tree` decide
what to read, so an entry outside every skill is never decompressed and a skill's files
are decompressed only up to its limit. An encrypted entry, or one whose compression
Python cannot read, is refused by name. Writing is deterministic: the same folders give
the same bytes (entries in path order, dated when the skill's version was saved, in UTC,
mode 644, or 755 for a file that was executable).
"""

from __future__ import annotations

import dataclasses
import io
import stat
import zipfile
from collections.abc import Sequence
from datetime import UTC, datetime

from webapp.pipeline import Skill

from .folders import Entry, SkillFolder, read_tree
from .frontmatter import SkillMdError, error
from .paths import SKILL_FILE
from .skill_md import encode_skill_md, skill_name

_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, RuntimeError,
               NotImplementedError, ValueError)
#: The earliest date a zip entry can hold, for a folder that has no time of its own.
_EARLIEST = (1980, 1, 1, 0, 0, 0)


def is_zip(filename: str, data: bytes) -> bool:
    """Whether an upload is a zip: by its first bytes, or by its name."""
    return data.startswith(b"PK\x03\x04") or filename.lower().endswith(".zip")


def read_zip(data: bytes) -> list[SkillFolder]:
    """The skills of a zip (`folders.read_tree`).

    Raises:
        SkillMdError: the zip cannot be read, or an entry stops the import.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return read_tree([_entry(archive, info) for info in archive.infolist()])
    except SkillMdError:
        raise
    except _ZIP_ERRORS as exc:
        raise error("upload", f"is not a readable zip archive ({exc})") from None


def _entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Entry:
    mode = info.external_attr >> 16
    path = info.filename
    while path.startswith("./"):
        path = path[2:]
    if info.is_dir():
        kind = "dir"
    elif stat.S_ISLNK(mode):
        kind = "link"
    else:
        kind = "file"

    def read(limit: int) -> bytes:
        if info.flag_bits & 0x1:
            raise error(path, "is encrypted")
        try:
            with archive.open(info) as file:
                return file.read(limit)
        except _ZIP_ERRORS as exc:
            raise error(path, f"cannot be read from the zip ({exc})") from None

    executable = info.create_system == 3 and bool(mode & 0o111)
    return Entry(path, info.file_size, kind, executable, read)


def folder_names(skills: Sequence[Skill]) -> list[str]:
    """The folder each skill is exported to: its `skill_md.skill_name`, with `-2`, `-3`...
    after a name another skill of the agent has already."""
    taken: set[str] = set()
    names = []
    for skill in skills:
        name, n = skill_name(skill.d_tag), 1
        while name in taken:
            n += 1
            name = f"{skill_name(skill.d_tag)}-{n}"
        taken.add(name)
        names.append(name)
    return names


def folder_files(folder: SkillFolder) -> list[tuple[str, bytes, bool]]:
    """`(path, bytes, executable)` of every file of a skill's folder, SKILL.md first."""
    skill_md = encode_skill_md(folder.skill, folder.head, folder.crlf, folder.line_ends)
    return [(SKILL_FILE, skill_md, False)] + [(f.path, f.data, f.executable)
                                              for f in folder.files]


def zip_date(saved_at: datetime | None) -> tuple[int, int, int, int, int, int]:
    """A zip entry's date for a skill version saved at `saved_at` (UTC, as the zip format
    keeps no time zone; None, or before 1980, is 1980-01-01, the earliest it can hold)."""
    if saved_at is None:
        return _EARLIEST
    if saved_at.tzinfo is not None:
        saved_at = saved_at.astimezone(UTC)
    t = saved_at
    return max((t.year, t.month, t.day, t.hour, t.minute, t.second), _EARLIEST)


def zip_folders(folders: Sequence[SkillFolder]) -> bytes:
    """A zip with one folder per skill, named by `folder_names`: a skills folder, ready for
    `.agents/skills/` or `.claude/skills/`."""
    buffer = io.BytesIO()
    names = folder_names([folder.skill for folder in folders])
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, folder in zip(names, folders, strict=True):
            dated = zip_date(folder.saved_at)
            for path, data, executable in folder_files(folder):
                info = zipfile.ZipInfo(f"{name}/{path}", date_time=dated)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.create_system = 3
                info.external_attr = (0o100755 if executable else 0o100644) << 16
                archive.writestr(info, data)
    return buffer.getvalue()


def zip_skill(folder: SkillFolder) -> tuple[str, bytes]:
    """`(file name, bytes)` of a zip holding one skill's folder."""
    return f"{skill_name(folder.skill.d_tag)}.zip", zip_folders([folder])


def read_upload(filename: str, data: bytes) -> list[SkillFolder]:
    """The skills of an uploaded zip, or of an uploaded `SKILL.md` (`read_skill_md_alone`).

    Raises:
        SkillMdError: every problem that stops the import.
    """
    if is_zip(filename, data):
        return read_zip(data)
    return read_skill_md_alone(SKILL_FILE, data)


def read_skill_md_alone(path: str, data: bytes) -> list[SkillFolder]:
    """The skill of a SKILL.md read without its folder (at `path`, whose folder's name its
    `name` is checked against): its files are not known (`SkillFolder.whole`)."""
    folders = read_tree([Entry(path, len(data), read=lambda limit: data[:limit])])
    return [dataclasses.replace(folder, whole=False) for folder in folders]
