"""What a skill's Files page shows: the files beside its SKILL.md, and the one opened."""

from __future__ import annotations

from dataclasses import dataclass

from webapp.agentskills import SkillFile, SkillFolder, crlf_throughout


@dataclass(frozen=True, slots=True)
class FileRow:
    """One file of the list: text files open in the editor, binary ones are downloaded."""

    path: str
    size: int
    text: bool
    executable: bool


@dataclass(frozen=True, slots=True)
class OpenFile:
    """The file opened: its text (None for a binary file) and whether it has CRLF line ends."""

    path: str
    size: int
    text: str | None
    crlf: bool
    executable: bool


def file_rows(folder: SkillFolder) -> list[FileRow]:
    """The skill's files, in path order."""
    return [FileRow(f.path, f.size, f.text is not None, f.executable) for f in folder.files]


def open_file(file: SkillFile) -> OpenFile:
    text = file.text
    return OpenFile(file.path, file.size, text, text is not None and crlf_throughout(text),
                    file.executable)
