"""What a skill's folder may hold: the rule for a file's path and the limits on its files.

One owner for every path in: a zip or a folder read for an import, a file saved in the
editor, and the store, which checks a file set before it writes one. The limits
(`FolderLimits`) default to what the Skills-over-MCP convention serves for a skill (512
files, 16 MiB), so the folders of real skills repositories (fonts, document templates)
fit; a deployment sets its own (`limits_from`). A path is relative to
the skill's folder, `/`-separated, and names a file (folders are implied by the paths).
Two paths that differ only in letter case or Unicode normalization would be one file on
macOS and Windows, so the second is refused, as is a path under another file.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from webapp.pipeline import is_digits

SKILL_FILE = "SKILL.md"
#: The most files a skill's folder holds by default, SKILL.md included.
MAX_FILES = 512
#: The most bytes the files beside SKILL.md hold together by default (SKILL.md's text has
#: its own bounds).
MAX_FILES_BYTES = 16 * 1024 * 1024
#: The most bytes of files an agent stores by default (each file once, by its sha256).
MAX_AGENT_BYTES = 256 * 1024 * 1024
#: The longest path of a file, in characters.
MAX_PATH_LENGTH = 512
#: Folders and files an import leaves out wherever they are: version control and the
#: resource forks and folder settings macOS adds to a zip.
IGNORED_NAMES = frozenset({".git", "__MACOSX", ".DS_Store"})


@dataclasses.dataclass(frozen=True)
class FolderLimits:
    """What a deployment lets a skill's folder, and an agent's files, hold: `files` in a
    skill's folder (SKILL.md included), `file_bytes` of the files beside SKILL.md together, and
    `agent_bytes` of the distinct files an agent stores (each kept once by its sha256)."""

    files: int = MAX_FILES
    file_bytes: int = MAX_FILES_BYTES
    agent_bytes: int = MAX_AGENT_BYTES


DEFAULT_LIMITS = FolderLimits()
#: The settings `limits_from` reads (app config keys; `SKILL_EDITOR_` + key in the
#: environment), by field of `FolderLimits`.
LIMIT_SETTINGS = {"files": "SKILL_MAX_FILES", "file_bytes": "SKILL_MAX_BYTES",
                  "agent_bytes": "AGENT_MAX_FILE_BYTES"}


def limits_from(settings: Mapping[str, Any]) -> FolderLimits:
    """The `FolderLimits` a deployment's settings give (a missing one is the default).

    Raises:
        ValueError: a setting that is not a whole number of at least 1.
    """
    values = {}
    for field, key in LIMIT_SETTINGS.items():
        value = settings.get(key)
        if value is None:
            continue
        text = str(value).strip()
        if not is_digits(text) or int(text) < 1:
            raise ValueError(f"{key} must be a whole number of at least 1, not {value!r}")
        values[field] = int(text)
    return FolderLimits(**values)


def path_problem(path: str) -> str | None:
    """Why `path` cannot name a file of a skill's folder, or None."""
    if not path:
        return "is empty"
    if len(path) > MAX_PATH_LENGTH:
        return f"is longer than {MAX_PATH_LENGTH} characters ({len(path)})"
    if not _encodes(path):
        return "is not Unicode text"
    if "\\" in path:
        return "holds a backslash: paths are /-separated"
    if any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") for ch in path):
        return "holds a control character or a line break"
    if path.startswith("/"):
        return "is absolute: a path is relative to the skill's folder"
    parts = path.split("/")
    if len(parts[0]) == 2 and parts[0][1] == ":" and parts[0][0].isascii():
        return "starts with a drive letter: a path is relative to the skill's folder"
    if any(part in (".", "..") for part in parts):
        return "holds a '.' or '..' part: a path stays inside the skill's folder"
    if any(part == "" for part in parts):
        return "holds an empty part ('//' or a '/' at either end)"
    if fold(path) == fold(SKILL_FILE):
        return f"is the skill's {SKILL_FILE}, which is its text, not a file beside it"
    return None


def fold(path: str) -> str:
    """What two paths are compared by on a case-insensitive file system."""
    return unicodedata.normalize("NFC", path).casefold()


def file_set_problems(files: Iterable[tuple[str, int]],
                      limits: FolderLimits = DEFAULT_LIMITS) -> list[tuple[str, str]]:
    """Every problem with a skill's files given as `(path, size)`, each `(path, why)`: a bad
    path, a clash with another path, too many files, too many bytes (named at the file that
    passes the limit)."""
    max_files, max_bytes = limits.files, limits.file_bytes
    problems: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    count, total = 1, 0  # SKILL.md is the first file
    for path, size in files:
        problem = path_problem(path)
        if problem:
            problems.append((path, problem))
            continue
        key = fold(path)
        other = seen.get(key)
        if other is not None:
            problems.append((path, "is listed twice" if other == path else
                             f"differs from {other!r} only in letter case or Unicode form: "
                             "they would be one file on macOS and Windows"))
            continue
        seen[key] = path
        count += 1
        total += size
        if count == max_files + 1:
            problems.append((path, f"is one file too many: a skill's folder holds at most "
                                   f"{max_files} files, {SKILL_FILE} included"))
        if total > max_bytes and total - size <= max_bytes:
            problems.append((path, bytes_problem(max_bytes)))
    problems += _nested(seen)
    return problems


def bytes_problem(max_bytes: int) -> str:
    """Why a file passing a skill's byte limit is refused."""
    return f"passes the limit of {max_bytes:,} bytes for the files beside {SKILL_FILE} together"


def agent_bytes_problem(held: int, adding: int, limits: FolderLimits) -> str | None:
    """Why an agent holding `held` bytes of files cannot store `adding` more, or None."""
    if held + adding <= limits.agent_bytes:
        return None
    return (f"would bring the agent's stored files to {held + adding:,} bytes, more than "
            f"the {limits.agent_bytes:,} it may hold")


def _nested(seen: dict[str, str]) -> list[tuple[str, str]]:
    """Paths under another file (`a` and `a/b`): `a` cannot be a file and a folder."""
    problems = []
    for key, path in seen.items():
        parts = key.split("/")
        for end in range(1, len(parts)):
            parent = seen.get("/".join(parts[:end]))
            if parent is not None:
                problems.append((path, f"is inside {parent!r}, which is a file"))
                break
    return problems


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
