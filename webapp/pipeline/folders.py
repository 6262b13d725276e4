"""A skill's Agent Skills folder as a `skill-workspace/2` bundle holds it: the head its
SKILL.md had as written, its line ends, and the files beside SKILL.md with their bytes.

The assembly does not read folders; a bundle carries them so that what is published,
exported and imported again is every byte of each skill's folder. In the bundle a file is
its manifest entry (`path`, `size`, `sha256`, `executable`) with its bytes in base64
(`data`); `read_folder` checks that the three agree. The path rule and the limits are the
store's to apply (`agentskills.file_set_problems`), as for any other way in.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

#: The keys a skill of a `skill-workspace/2` bundle has besides those of `/1`.
FOLDER_KEYS = ("frontmatter", "crlf", "line_ends", "files")
FILE_KEYS = ("path", "size", "sha256", "executable", "data")


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Folder:
    """The folder of the skill `d_tag`: its SKILL.md's head as written (`frontmatter`, ""
    for a skill made in the editor), whether SKILL.md had CRLF line ends, each line's end
    when it mixed them (`line_ends`: a letter a line, `agentskills.line_ends`), and its
    files in path order."""

    d_tag: str
    head: str = ""
    crlf: bool = False
    files: tuple[SkillFile, ...] = ()
    line_ends: str = ""

    @property
    def empty(self) -> bool:
        """Nothing beyond what a `/1` bundle holds: no head, LF, no files."""
        return not (self.head or self.crlf or self.line_ends or self.files)


def dump_folder(folder: Folder | None) -> dict[str, Any]:
    """The keys a `/2` bundle adds to a skill (an absent folder is an empty one)."""
    folder = folder or Folder("")
    mixed = {"line_ends": folder.line_ends} if folder.line_ends else {}
    return {"frontmatter": folder.head, "crlf": folder.crlf, **mixed,
            "files": [dump_file(f) for f in sorted(folder.files, key=lambda f: f.path)]}


def dump_file(file: SkillFile) -> dict[str, Any]:
    entry: dict[str, Any] = {"path": file.path, "size": file.size, "sha256": file.sha256,
                             "executable": file.executable}
    return {**entry, "data": base64.b64encode(file.data).decode("ascii")}


def read_folder(data: dict[str, Any], d_tag: str, path: str,
                problem: Callable[[str, str], None]) -> Folder:
    """The folder the `/2` keys of the skill `data` (at JSON path `path`) describe; each
    problem is reported with `problem(json_path, message)`."""
    head = data.get("frontmatter", "")
    if not isinstance(head, str):
        problem(f"{path}.frontmatter", "must be a string")
        head = ""
    crlf = data.get("crlf", False)
    if not isinstance(crlf, bool):
        problem(f"{path}.crlf", "must be true or false")
        crlf = False
    line_ends = data.get("line_ends", "")
    if not isinstance(line_ends, str) or line_ends.strip("nrc"):
        problem(f"{path}.line_ends", "must be a letter a line: n (LF), r (CRLF) or c (CR)")
        line_ends = ""
    entries = data.get("files", [])
    if not isinstance(entries, list):
        problem(f"{path}.files", "must be an array")
        entries = []
    files = [file for i, entry in enumerate(entries)
             if (file := _read_file(entry, f"{path}.files[{i}]", problem)) is not None]
    return Folder(d_tag, head, crlf, tuple(sorted(files, key=lambda f: f.path)), line_ends)


def _read_file(entry: Any, where: str, problem: Callable[[str, str], None]
               ) -> SkillFile | None:
    if not isinstance(entry, dict):
        problem(where, "must be an object")
        return None
    unknown = [key for key in entry if key not in FILE_KEYS]
    for key in unknown:
        problem(f"{where}.{key}", f"unknown key (expected one of: {', '.join(FILE_KEYS)})")
    path, size, sha256 = entry.get("path"), entry.get("size"), entry.get("sha256")
    executable, encoded = entry.get("executable", False), entry.get("data")
    if not isinstance(path, str) or not path:
        problem(f"{where}.path", "must be a non-empty string")
        return None
    if not isinstance(executable, bool):
        problem(f"{where}.executable", "must be true or false")
        return None
    if not isinstance(encoded, str):
        problem(f"{where}.data", "must be the file's bytes in base64")
        return None
    try:
        raw = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        problem(f"{where}.data", "is not valid base64")
        return None
    file = SkillFile(path, raw, executable)
    if isinstance(size, bool) or size != file.size:
        problem(f"{where}.size", f"must be the size of its data, {file.size}")
        return None
    if sha256 != file.sha256:
        problem(f"{where}.sha256", "must be the sha256 of its data (hexadecimal, lowercase)")
        return None
    return file
