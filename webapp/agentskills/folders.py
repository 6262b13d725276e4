"""Skill folders found in an upload: a skill's text with the files beside its SKILL.md.

An upload (a zip, or a folder on disk read by the command line) is a list of `Entry`s.
`read_tree` finds the skills in it and reads them, all or nothing:

- a skill is a folder holding a `SKILL.md`; the shallowest wins, so a `SKILL.md` deeper
  inside a skill's folder is one of its files. A `SKILL.md` at the top is a skill too (a
  zip of one skill's contents). Everything outside the skills' folders is left unread.
- nothing in the upload may point outside it (an absolute path, a `..` part, a backslash,
  a drive letter), and no skill may hold a link or a file the path rule refuses
  (`paths.file_set_problems`); every such entry is named, and nothing is read.
- reading is bounded by what may be kept, not by what the entries claim: a skill's files
  are read up to the bytes left of its limit, so a zip bomb is stopped at the limit, and
  the sizes an archive declares are checked against what it gives.
"""

from __future__ import annotations

import dataclasses
import hashlib
import unicodedata
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import cached_property
from posixpath import basename, dirname

from webapp.pipeline import Skill

from .frontmatter import SkillMdError
from .paths import IGNORED_NAMES, MAX_FILES_BYTES, SKILL_FILE, file_set_problems
from .skill_md import MAX_SKILL_FILE_SIZE, decode, read_skill_md

#: The most entries an upload may list, and skills it may hold.
MAX_ENTRIES = 20_000
MAX_SKILLS = 500
#: The most bytes an upload's skills may hold together, read.
MAX_UPLOAD_BYTES = 64 * 1024 * 1024
#: The most problems a refusal lists (it counts the rest).
PROBLEMS_SHOWN = 50


@dataclasses.dataclass(frozen=True)
class SkillFile:
    """A file beside a skill's SKILL.md: its path in the skill's folder and its bytes."""

    path: str
    data: bytes
    executable: bool = False

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def size(self) -> int:
        return len(self.data)

    @cached_property
    def text(self) -> str | None:
        """The file as text when it is UTF-8 without NUL characters, else None (binary)."""
        try:
            text = self.data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        return None if "\x00" in text else text


@dataclasses.dataclass(frozen=True)
class SkillFolder:
    """A skill with its Agent Skills folder: the head its SKILL.md had (`skill_md.SkillText`),
    its line ends (`crlf`, or each line's: `line_ends`), and its files; `source` is where
    an upload held it (for messages).
    `whole` is false for a SKILL.md read alone: its files are not known, and an import
    keeps the ones the skill has. `saved_at` is when this version of the skill was saved
    (UTC; None for one read from an upload): a zip dates the folder's entries with it."""

    skill: Skill
    head: str = ""
    crlf: bool = False
    files: tuple[SkillFile, ...] = ()
    source: str = ""
    whole: bool = True
    saved_at: datetime | None = None
    line_ends: str = ""


@dataclasses.dataclass(frozen=True)
class Entry:
    """One entry of an upload: its `/`-separated path, the size it claims, what it is
    (`file`, `dir` or `link`) and a function reading at most n bytes of a file."""

    path: str
    size: int = 0
    kind: str = "file"
    executable: bool = False
    read: Callable[[int], bytes] = lambda limit: b""


def read_tree(entries: Sequence[Entry]) -> list[SkillFolder]:
    """The skills of an upload, in the order of their folders' paths.

    Raises:
        SkillMdError: everything that stops the import, each `(where, why)`.
    """
    if len(entries) > MAX_ENTRIES:
        raise SkillMdError([("upload", f"holds {len(entries):,} entries, more than the "
                                       f"{MAX_ENTRIES:,} an import reads")])
    entries = [e for e in entries if not IGNORED_NAMES & set(e.path.strip("/").split("/"))]
    problems = [(e.path, why) for e in entries if (why := _escape_problem(e.path))]
    problems += _repeated(entries)
    if problems:
        raise _refusal(problems)
    roots = _skill_roots(entries)
    if not roots:
        raise SkillMdError([("upload", f"holds no {SKILL_FILE} (a skill is a folder "
                                       f"holding a {SKILL_FILE})")])
    if len(roots) > MAX_SKILLS:
        raise SkillMdError([("upload", f"holds {len(roots)} skills, more than the "
                                       f"{MAX_SKILLS} an import takes")])
    members = _members(entries, roots)
    for root in roots:
        problems += _folder_problems(root, members[root])
    declared = sum(e.size for root in roots for e in members[root])
    if not problems and declared > MAX_UPLOAD_BYTES:
        problems.append(("upload", f"its skills hold {declared:,} bytes, more than the "
                                   f"{MAX_UPLOAD_BYTES:,} an import reads"))
    if problems:
        raise _refusal(problems)
    folders = [_read_folder(root, members[root]) for root in roots]
    _check_unique(folders)
    return folders


def _escape_problem(path: str) -> str | None:
    """Why an entry's path could point outside the upload, or None."""
    if path.startswith("/") or "\\" in path or "\x00" in path:
        return "is absolute or holds a backslash or a NUL: nothing in an upload is read"
    first = path.split("/")[0]
    if len(first) == 2 and first[1] == ":":
        return "starts with a drive letter: nothing in an upload is read"
    if ".." in path.split("/"):
        return "holds a '..' part, which would point outside the upload"
    return None


def _repeated(entries: Sequence[Entry]) -> list[tuple[str, str]]:
    seen: set[str] = set()
    problems = []
    for entry in entries:
        if entry.path in seen:
            problems.append((entry.path, "is in the upload twice"))
        seen.add(entry.path)
    return problems


def _skill_roots(entries: Sequence[Entry]) -> list[str]:
    """The folders (`""` for the top) holding a `SKILL.md`, not inside another one."""
    candidates = sorted({dirname(e.path.rstrip("/")) for e in entries
                         if e.kind == "file" and basename(e.path) == SKILL_FILE},
                        key=lambda root: (root.count("/"), root))
    roots: list[str] = []
    for candidate in candidates:
        if not any(_inside(candidate, root) for root in roots):
            roots.append(candidate)
    return sorted(roots)


def _inside(path: str, root: str) -> bool:
    return root == "" or path == root or path.startswith(root + "/")


def _members(entries: Sequence[Entry], roots: list[str]) -> dict[str, list[Entry]]:
    """Each root's SKILL.md first, then its other entries (not folders), relative paths."""
    members: dict[str, list[Entry]] = {root: [] for root in roots}
    for entry in entries:
        if entry.kind == "dir":
            continue
        root = max((r for r in roots if _inside(dirname(entry.path), r)), key=len, default=None)
        if root is None:
            continue
        relative = entry.path[len(root) + 1:] if root else entry.path
        member = dataclasses.replace(entry, path=relative)
        if relative == SKILL_FILE:
            members[root].insert(0, member)
        else:
            members[root].append(member)
    return members


def _folder_problems(root: str, members: list[Entry]) -> list[tuple[str, str]]:
    where = f"{root}/" if root else ""
    problems = [(where + e.path, "is a link: a skill's folder holds files only")
                for e in members if e.kind == "link"]
    skill_md = members[0]
    if skill_md.size > MAX_SKILL_FILE_SIZE:
        problems.append((where + SKILL_FILE, _too_large(MAX_SKILL_FILE_SIZE)))
    problems += [(where + path, why) for path, why in
                 file_set_problems((e.path, e.size) for e in members[1:] if e.kind == "file")]
    return problems


def _read_folder(root: str, members: list[Entry]) -> SkillFolder:
    where = f"{root}/" if root else ""
    skill_md = members[0]
    raw = skill_md.read(MAX_SKILL_FILE_SIZE + 1)
    if len(raw) > MAX_SKILL_FILE_SIZE:  # the size an archive declares may lie
        raise SkillMdError([(where + SKILL_FILE, _too_large(MAX_SKILL_FILE_SIZE))])
    files, left = [], MAX_FILES_BYTES
    for entry in members[1:]:
        data = entry.read(left + 1)
        if len(data) > left:
            raise SkillMdError([(where + entry.path, f"passes the limit of {MAX_FILES_BYTES:,} "
                                                     f"bytes for the files beside {SKILL_FILE}")])
        left -= len(data)
        files.append(SkillFile(entry.path, data, entry.executable))
    text = decode(raw, where + SKILL_FILE)
    try:
        read = read_skill_md(text, folder=basename(root) or None)
    except SkillMdError as exc:
        raise SkillMdError([(f"{where}{SKILL_FILE}: {field}", why)
                            for field, why in exc.problems]) from None
    files.sort(key=lambda f: f.path)
    return SkillFolder(read.skill, read.head, read.crlf, tuple(files), root or SKILL_FILE,
                       line_ends=read.line_ends)


def _check_unique(folders: list[SkillFolder]) -> None:
    """Two skills of one upload with d_tags that read the same (NFKC, any case) would be
    one skill: refused, naming both."""
    seen: dict[str, SkillFolder] = {}
    problems = []
    for folder in folders:
        key = unicodedata.normalize("NFKC", folder.skill.d_tag).casefold()
        other = seen.setdefault(key, folder)
        if other is not folder:
            problems.append((folder.source, f"is the skill {folder.skill.d_tag!r}, as "
                                            f"{other.source} is ({other.skill.d_tag!r})"))
    if problems:
        raise _refusal(problems)


def _refusal(problems: list[tuple[str, str]]) -> SkillMdError:
    shown = problems[:PROBLEMS_SHOWN]
    if len(problems) > PROBLEMS_SHOWN:
        shown.append(("upload", f"and {len(problems) - PROBLEMS_SHOWN:,} more problems"))
    return SkillMdError(shown)


def _too_large(limit: int) -> str:
    return f"is larger than {limit:,} bytes"
