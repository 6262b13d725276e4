"""Agent Skills folders for the tests: real-shaped skills repositories, and zips of them.

`REPOSITORY` is shaped as a public skills repository is when GitHub zips it: a top folder,
skills under `skills/`, files outside them (a README, a workflow, a link). Its skills carry
what the issue found lost: scripts (executable), references, a LICENSE, templates, nested
folders, a binary file, unicode names, an empty file, foreign frontmatter keys in their
order, a description over 1,024 characters, CRLF line ends and a byte-order mark.
"""

from __future__ import annotations

import io
import zipfile

PDF_SKILL_MD = (
    "---\n"
    "name: pdf\n"
    "description: Comprehensive PDF manipulation toolkit for extracting text and tables, creating\n"
    "  new PDFs, merging/splitting documents, and handling forms. Use when filling a PDF form.\n"
    "license: Proprietary. LICENSE.txt has complete terms\n"
    "---\n"
    "\n"
    "# PDF Processing Guide\n"
    "\n"
    "For filling forms, read FORMS.md. For the API, see reference.md.\n"
    "Run `python scripts/fill_fillable_fields.py`.\n"
)

BUILDER_SKILL_MD = (
    "---\n"
    "# A comment the frontmatter keeps.\n"
    "name: mcp-builder\n"
    "description: \"Guide for creating high-quality MCP servers: tools, resources and prompts.\"\n"
    "license: Complete terms in LICENSE.txt\n"
    "compatibility: Requires Python 3.11+ and network access\n"
    "allowed-tools: Bash(python:*) Read Write\n"
    "argument-hint: '[server name]'\n"
    "disable-model-invocation: false\n"
    "metadata:\n"
    "  author: example-org\n"
    "  version: \"1.0\"\n"
    "---\n"
    "\n"
    "# MCP Server Development Guide\n"
    "\n"
    "Load [the best practices](reference/mcp_best_practices.md) first.\n"
)

#: 1,068 characters: over the format's 1,024, though Claude Code loads it.
LONG_DESCRIPTION = ("Guide users through a structured workflow for co-authoring documentation. "
                    * 15)[:1068]
COAUTHORING_SKILL_MD = (
    "\ufeff---\r\n"
    "name: doc-coauthoring\r\n"
    f"description: {LONG_DESCRIPTION}\r\n"
    "---\r\n"
    "\r\n"
    "# Doc Co-Authoring Workflow\r\n"
    "\r\n"
    "Three stages: context gathering, refinement, reader testing.\r\n"
)

BINARY = bytes(range(256)) * 4

#: Each skill's files beside SKILL.md: `path -> bytes`, or `(bytes, executable)`.
PDF_FILES: dict[str, bytes | tuple[bytes, bool]] = {
    "FORMS.md": b"# Forms\n\nFill the fields in order.\n",
    "reference.md": b"# Reference\n\npypdf, pdfplumber, reportlab.\n",
    "LICENSE.txt": b"Proprietary. All rights reserved.\n",
    "scripts/fill_fillable_fields.py": (b"#!/usr/bin/env python3\nprint('fill')\n", True),
    "scripts/check_bounding_boxes.py": (b"#!/usr/bin/env python3\nprint('boxes')\n", True),
    "templates/empty.txt": b"",
    "assets/logo.png": b"\x89PNG\r\n\x1a\n" + BINARY,
    "références/überblick.md": "# Überblick\n\nÄußerst nützlich.\n".encode(),
}
BUILDER_FILES: dict[str, bytes | tuple[bytes, bool]] = {
    "LICENSE.txt": b"Apache License 2.0\n",
    "reference/mcp_best_practices.md": b"# Best practices\n",
    "reference/deep/nested/evaluation.xml": b"<evaluation/>\n",
    "scripts/connections.py": (b"import asyncio\r\n", True),
}
COAUTHORING_FILES: dict[str, bytes | tuple[bytes, bool]] = {}

#: The repository: `path -> bytes` (or `(bytes, executable)`); `LINK` marks a symlink.
LINK = object()


def repository(top: str = "skills-main") -> dict[str, object]:
    """The entries of a zipped skills repository, under the folder `top`."""
    entries: dict[str, object] = {
        f"{top}/README.md": b"# Skills\n",
        f"{top}/.github/workflows/ci.yml": b"on: push\n",
        f"{top}/CLAUDE.md": LINK,  # outside every skill: never read
        f"{top}/skills/pdf/SKILL.md": PDF_SKILL_MD.encode(),
        f"{top}/skills/mcp-builder/SKILL.md": BUILDER_SKILL_MD.encode(),
        f"{top}/skills/doc-coauthoring/SKILL.md": COAUTHORING_SKILL_MD.encode(),
    }
    for folder, files in (("pdf", PDF_FILES), ("mcp-builder", BUILDER_FILES),
                          ("doc-coauthoring", COAUTHORING_FILES)):
        entries.update({f"{top}/skills/{folder}/{path}": data for path, data in files.items()})
    return entries


def skill_files(entries: dict[str, object], folder: str) -> dict[str, bytes]:
    """The files of one skill of `entries` (SKILL.md included), by path in its folder."""
    prefix = next(path[:-len("SKILL.md")] for path in entries
                  if path.endswith(f"/{folder}/SKILL.md") or path == f"{folder}/SKILL.md")
    return {path[len(prefix):]: _bytes(data) for path, data in entries.items()
            if path.startswith(prefix) and data is not LINK}


def _bytes(data: object) -> bytes:
    return data[0] if isinstance(data, tuple) else data  # type: ignore[return-value]


def zipped(entries: dict[str, object]) -> bytes:
    """A zip of `entries`, the same bytes at every call (a fixed date): `bytes`, a
    `(bytes, executable)` pair, `LINK` (a symlink to `README.md`), or a name ending in
    `/` (a folder)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.create_system = 3
            if data is LINK:
                info.external_attr = 0o120777 << 16
                archive.writestr(info, b"README.md")
                continue
            executable = isinstance(data, tuple) and data[1]
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, _bytes(data))
    return buffer.getvalue()


def unzipped(data: bytes) -> dict[str, bytes]:
    """Every file of a zip, by name."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()
                if not info.is_dir()}


def executables(data: bytes) -> set[str]:
    """The names of a zip's files marked executable."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename for info in archive.infolist()
                if (info.external_attr >> 16) & 0o111}
