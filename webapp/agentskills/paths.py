"""What a skill's folder may hold: the rule for a file's path and the limits on its files.

One owner for every path in: a zip or a folder read for an import, a file saved in the
editor, and the store, which checks a file set before it writes one. The limits are
Langfuse's for a skill version (its Skill Management limits: 200 files with SKILL.md, about
1 MB of content, relative POSIX paths of at most 512 characters), so a folder kept here
moves there unchanged; unlike Langfuse, binary files are kept too. A path is relative to
the skill's folder, `/`-separated, and names a file (folders are implied by the paths).
Two paths that differ only in letter case or Unicode normalization would be one file on
macOS and Windows, so the second is refused, as is a path under another file.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

SKILL_FILE = "SKILL.md"
#: The most files a skill's folder holds, SKILL.md included.
MAX_FILES = 200
#: The most bytes the files beside SKILL.md hold together (SKILL.md's text has its own bounds).
MAX_FILES_BYTES = 1_000_000
#: The longest path of a file, in characters.
MAX_PATH_LENGTH = 512
#: Folders and files an import leaves out wherever they are: version control and the
#: resource forks and folder settings macOS adds to a zip.
IGNORED_NAMES = frozenset({".git", "__MACOSX", ".DS_Store"})


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


def file_set_problems(files: Iterable[tuple[str, int]]) -> list[tuple[str, str]]:
    """Every problem with a skill's files given as `(path, size)`, each `(path, why)`: a bad
    path, a clash with another path, too many files, too many bytes (named at the file that
    passes the limit)."""
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
        if count == MAX_FILES + 1:
            problems.append((path, f"is one file too many: a skill's folder holds at most "
                                   f"{MAX_FILES} files, {SKILL_FILE} included"))
        if total > MAX_FILES_BYTES and total - size <= MAX_FILES_BYTES:
            problems.append((path, f"passes the limit of {MAX_FILES_BYTES:,} bytes for the files "
                                   f"beside {SKILL_FILE} together"))
    problems += _nested(seen)
    return problems


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
