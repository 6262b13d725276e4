"""From pieces to what the agent is given: messages, the document and the log entry.

The agent's message mode decides how the pieces of the selected skills become
messages: `grouped` (one message per role, in first-use order, system first) or
`sequence` (one message per piece, in order). The document is the messages one after
another, each under its `role:` line, with one origin per line (its provenance).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .blocks import Block, Piece
from .origins import Origins, OriginsBuilder
from .result import Origin

SEPARATOR = Origin("separator")
ROLE_LINE = Origin("role")
TITLE = (Origin("title"),)
_SAME_SKILL = (SEPARATOR,)
_NEW_SKILL = (SEPARATOR, SEPARATOR, SEPARATOR)

#: Reports a note about the layout: (severity, code, message, origin or None).
Note = Callable[[str, str, str, Origin | None], None]


class Message:
    """A message being laid out: text chunks joined by newlines, one origin per line."""

    __slots__ = ("_content", "_origins", "chunks", "role")

    def __init__(self, role: str):
        self.role = role
        self.chunks: list[str] = []
        self._origins = OriginsBuilder()
        self._content: str | None = None

    def add(self, text: str, origins: Sequence[Origin]) -> None:
        self.chunks.append(text)
        self._origins.extend(origins)
        self._content = None

    @property
    def origins(self) -> Origins:
        """One origin per line of the content, as runs."""
        return self._origins.build()

    @property
    def content(self) -> str:
        """The chunks joined (once: a large document's message is half a megabyte)."""
        if self._content is None:
            self._content = "\n".join(self.chunks)
        return self._content


def grouped_messages(pieces: Sequence[Piece], title: str, note: Note) -> list[Message]:
    """One message per role, in the order the roles first appear (system first, under the
    title); within one, pieces of different skills are separated by `---`."""
    grouped: dict[str, list[Piece]] = {"system": []}
    for piece in pieces:
        grouped.setdefault(piece.role, []).append(piece)
    messages: list[Message] = []
    for role, role_pieces in grouped.items():
        message = Message(role)
        if role == "system":
            message.add(f"# {title}", TITLE)
        previous: str | None = None
        for piece in role_pieces:
            if not piece.text:
                continue
            if message.chunks:
                if previous is not None and piece.skill != previous:
                    message.add("\n---\n", _NEW_SKILL)  # a blank line, `---`, a blank line
                else:
                    message.add("", _SAME_SKILL)
            message.add(piece.text, piece.origins)
            previous = piece.skill
        if message.chunks:
            messages.append(message)
        else:
            note("info", "empty-message", f"the `{role}` message is empty and was dropped", None)
    return messages


def sequence_messages(pieces: Sequence[Piece], title: str, note: Note) -> list[Message]:
    """One message per non-empty piece, in order; the title opens the first system message
    (or a system message of its own)."""
    messages: list[Message] = []
    for piece in pieces:
        if not piece.text:
            note("info", "empty-message",
                 f"an empty `{piece.role}` message of `{piece.skill}` was dropped",
                 Origin("skill", piece.skill, None))
            continue
        message = Message(piece.role)
        message.add(piece.text, piece.origins)
        messages.append(message)
    first = Message("system")
    first.add(f"# {title}", TITLE)
    if messages and messages[0].role == "system":
        first.add("", _SAME_SKILL)
        first.add(messages[0].content, messages[0].origins)
        messages[0] = first
    else:
        messages.insert(0, first)
    return messages


#: The layouts, by the agent's `message_mode`.
MESSAGE_MODES: dict[str, Callable[[Sequence[Piece], str, Note], list[Message]]] = {
    "grouped": grouped_messages,
    "sequence": sequence_messages,
}


def user_fallback(message: str) -> Message:
    """The incoming message as the user message, for when no skill wrote user text."""
    piece = Piece.of(Block("user", None, message,
                           (Origin("message"),) * (message.count("\n") + 1)))
    fallback = Message("user")
    fallback.add(piece.text, piece.origins)
    return fallback


def document_of(messages: Sequence[Message]) -> tuple[str, Origins]:
    """The document (each message under its `role:` line, a blank line between) and the
    origin of each of its lines (made when they are read: see `origins.Origins`)."""
    parts: list[str] = []
    provenance = OriginsBuilder()
    for index, msg in enumerate(messages):
        if index:
            parts.append("")
            provenance.append(SEPARATOR)
        parts.append(f"{msg.role}:")
        provenance.append(ROLE_LINE)
        parts.append(msg.content)
        provenance.extend(msg.origins)
    return "\n".join(parts) + "\n", provenance.build()
