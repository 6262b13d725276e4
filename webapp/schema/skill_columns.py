"""The columns a skill and each of its revisions share (`models.Skill`, `SkillRevision`), and
those of the live skill alone."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Boolean, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

NAME_LENGTH = 200
#: The longest `description` a skill may have: the Agent Skills format's limit is 1,024,
#: and a longer one is kept (its lint says which clients refuse it). SQLite ignores a
#: VARCHAR's length, so the column keeps the length it was created with there: changing
#: it would copy the table, and the copy's drop would cascade the revisions away.
DESCRIPTION_LENGTH = 8192
_DESCRIPTION = String(DESCRIPTION_LENGTH).with_variant(String(1024), "sqlite")


class SkillState:
    """The columns a skill and each of its revisions share: its fields, and its Agent Skills
    folder (`webapp.agentskills`): the head of its SKILL.md as it was read (the fences, the
    YAML between them and the blank line after; "" for a skill never read from one), whether
    that file had CRLF line ends (or each line's end, when it mixed them), and the files
    beside SKILL.md as a manifest (`[{"path", "sha256", "size"}]`, `"executable": true`
    when so; the bytes are `models.SkillBlob`s), so each revision records the file set it
    had."""

    d_tag: Mapped[str] = mapped_column(String(NAME_LENGTH))
    name: Mapped[str] = mapped_column(String(NAME_LENGTH), default="")
    description: Mapped[str] = mapped_column(_DESCRIPTION, default="", server_default="")
    layer: Mapped[int] = mapped_column(Integer, default=1)
    triggers: Mapped[list[Any]] = mapped_column(JSON, default=list)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    content: Mapped[str] = mapped_column(Text, default="")
    frontmatter: Mapped[str] = mapped_column(Text, default="", server_default="")
    crlf: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    #: Each line's end when the file mixed them (`agentskills.line_ends`), else "".
    line_ends: Mapped[str] = mapped_column(Text, default="", server_default="")
    files: Mapped[list[Any]] = mapped_column(JSON, default=list, server_default="[]")


class LiveSkillState(SkillState):
    """The columns of a live skill (`models.Skill`) that its revisions do not keep."""

    #: The Nostr key of the author of a skill adopted from another key (None: the agent's).
    nostr_author: Mapped[str | None] = mapped_column(String(64))
    #: The name its SKILL.md exports, of any length, kept by every write
    #: (`store.convert.exported_of`): a keystroke's lint reads the other skills' names here
    #: instead of parsing every SKILL.md head of the agent.
    exported_name: Mapped[str] = mapped_column(Text, default="", server_default="")
    #: How each client lists it in its catalogue, `{client: [line length, description
    #: length]}` (`agentskills.listing_facts`), kept by every write beside the name: the
    #: Problems tab sums the other skills' lines against a client's budget from here.
    listing: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict, server_default="{}")
