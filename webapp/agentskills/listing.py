"""One judgement a client: whether it lists a skill, and what of its description it lists.

Both the lint (`lint.lint_skill`: "Codex skips the skill") and the catalogue
(`catalogue.catalogue`: the skill is not in Codex's listing) read these functions, so the
two cannot disagree: a client that leaves a skill out says so in the lint and does not
count it in its listing, and the description the lint measures against a client's cap for
one entry is the one its listing shows. Pure, on a head's parsed frontmatter.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from .clients import Client
from .skill_md import DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH

#: Codex: `metadata.short-description` at most 500 characters.
SHORT_DESCRIPTION_MAX_LENGTH = 500


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def collapsed(text: str) -> str:
    """`text` with each run of white space one space, as Codex counts and clients list it."""
    return " ".join(text.split())


def left_out(data: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Why clients leave the skill whose frontmatter is `data` out of their listing: each
    lint code whose rule it is -> the clients that leave it out for that rule (Codex and
    Gemini CLI skip a skill without a name or description; Codex one whose name, description
    or short description is too long; Claude Code does not list a skill the model may not
    invoke)."""
    out: dict[str, tuple[str, ...]] = {}
    name, description = data.get("name"), data.get("description")
    if not _text(name):
        out["name-missing"] = ("codex", "gemini-cli")
    elif len(unicodedata.normalize("NFKC", name.strip())) > NAME_MAX_LENGTH:
        out["name-too-long"] = ("codex",)
    if not _text(description):
        out["description-missing"] = ("codex", "gemini-cli")
    elif len(collapsed(description)) > DESCRIPTION_MAX_LENGTH:
        out["description-too-long"] = ("codex",)
    metadata = data.get("metadata")
    short = metadata.get("short-description") if isinstance(metadata, Mapping) else None
    if isinstance(short, str) and len(short) > SHORT_DESCRIPTION_MAX_LENGTH:
        out["short-description-too-long"] = ("codex",)
    if data.get("disable-model-invocation") is True:
        out["not-listed"] = ("claude-code",)
    return out


def leaves_out(client: Client, data: Mapping[str, Any]) -> str | None:
    """The first lint code for which `client` leaves the skill out, or None: it lists it."""
    return next((code for code, clients in left_out(data).items() if client.id in clients),
                None)


def listed_description(client: Client, data: Mapping[str, Any]) -> str:
    """The description `client` lists for the skill, before its cap for one entry: the
    description collapsed, and for Claude Code its `when_to_use` after it."""
    description = data.get("description")
    text = collapsed(description) if isinstance(description, str) else ""
    when = data.get("when_to_use") if "when_to_use" in client.keys else None
    if isinstance(when, str) and when.strip():
        text = f"{text} {collapsed(when)}".strip()
    return text


def cut_at(client: Client, data: Mapping[str, Any]) -> int | None:
    """The length `client` cuts the skill's listed description to, or None: it lists it whole."""
    length = len(listed_description(client, data))
    return client.entry_cap if client.entry_cap and length > client.entry_cap else None
