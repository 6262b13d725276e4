"""Agent Skills folders for the tests: real-shaped skills repositories, and zips of them.

`REPOSITORY` is shaped as a public skills repository is when GitHub zips it: a top folder,
skills under `skills/`, files outside them (a README, a workflow, a link). Its skills carry
what the issue found lost: scripts (executable), references, a LICENSE, templates, nested
folders, a binary file, unicode names, an empty file, foreign frontmatter keys in their
order, a description over 1,024 characters, CRLF line ends and a byte-order mark.
"""

from __future__ import annotations

import io
import random
import zipfile
from typing import Any

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


# -- a repository at real size

#: A font's bytes: 1.2 MB that do not compress (as a real font's barely do), the same at
#: every call.
FONT = random.Random(36).randbytes(1_200_000)
#: A document template (a zip itself, as a .docx is), binary.
TEMPLATE = b"PK\x03\x04" + random.Random(37).randbytes(1_100_000)
CANVAS_SKILL_MD = (
    "---\n"
    "name: canvas-design\n"
    "description: Create beautiful visual art in .png and .pdf documents using design\n"
    "  philosophy. Use when the user asks for a poster or a piece of art.\n"
    "license: Complete terms in LICENSE.txt\n"
    "---\n"
    "\n"
    "# Canvas Design\n"
    "\n"
    "Fonts are in canvas-fonts/.\n"
)
DOCX_SKILL_MD = (
    "---\r\n"
    "name: docx\r\n"
    "description: \"Document creation, editing and analysis with tracked changes.\"\r\n"
    "license: Proprietary. LICENSE.txt has complete terms\r\n"
    "---\r\n"
    "\r\n"
    "# DOCX creation, editing, and analysis\r\n"
    "\r\n"
    "Unpack with `python ooxml/scripts/unpack.py`.\r\n"
)
CANVAS_FILES: dict[str, bytes | tuple[bytes, bool]] = {
    "canvas-fonts/Inter-Regular.ttf": FONT,
    "canvas-fonts/OFL.txt": b"Copyright 2020 The Inter Project Authors\r\nSIL OFL 1.1\r\n",
    "LICENSE.txt": b"Apache License 2.0\n",
}
DOCX_FILES: dict[str, bytes | tuple[bytes, bool]] = {
    "ooxml/scripts/unpack.py": (b"#!/usr/bin/env python3\r\nimport zipfile\r\n", True),
    "ooxml/scripts/pack.sh": (b"#!/bin/sh\nzip -r \"$1\" .\n", True),
    "ooxml/schemas/ISO-IEC29500-4_2016/wml.xsd": b"<xsd:schema>\r\n<a/>\n<b/>\r</xsd:schema>\n",
    "templates/template.docx": TEMPLATE,
    "docx-js.md": b"# docx-js\r\n\r\nMixed\nline\r\nends.\n",
}


def real_repository(top: str = "skills-main") -> dict[str, object]:
    """`repository()` with two skills at real size: `canvas-design` (a 1.2 MB font) and
    `docx` (a CRLF SKILL.md, executable scripts, nested schemas, a binary template, mixed
    line ends), both over the 1,000,000 bytes a skill once was allowed."""
    entries = repository(top)
    entries[f"{top}/skills/canvas-design/SKILL.md"] = CANVAS_SKILL_MD.encode()
    entries[f"{top}/skills/docx/SKILL.md"] = DOCX_SKILL_MD.encode()
    for folder, files in (("canvas-design", CANVAS_FILES), ("docx", DOCX_FILES)):
        entries.update({f"{top}/skills/{folder}/{path}": data for path, data in files.items()})
    return entries


def crowded_skill(top: str, count: int) -> dict[str, object]:
    """The entries of a skill `crowded` holding `count` small files beside its SKILL.md."""
    entries: dict[str, object] = {
        f"{top}/SKILL.md": b"---\nname: crowded\ndescription: Many files.\n---\n\nMany.\n"}
    entries.update({f"{top}/data/{i:04}.txt": b"x\n" for i in range(count)})
    return entries


def published_repository(app: Any, agent: str = "Docs") -> dict[str, object]:
    """`real_repository()` imported into `agent` and published as #1 (production); its
    entries."""
    from webapp import store
    from webapp.agentskills import read_zip
    from webapp.schema import db

    entries = real_repository()
    with app.app_context():
        session = db.get_session()
        store.import_skills(session, agent, read_zip(zipped(entries)))
        store.publish(session, agent, "first", 0)
    return entries
