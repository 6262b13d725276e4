"""What the Messages and Log tabs show of a context's messages: a card per message, the
messages as one text to diff, and the request bodies of the two providers' APIs.

The Messages tab shows the request bodies a provider would be sent; a 200-skill agent's
system message is one string of 400,000 characters, in two bodies: over a megabyte of
highlighted JSON per keystroke. A large document's bodies are shown with each string
longer than `BODY_CUT` characters cut to its start and a note of how long it is; the
whole body is one link away (`agent_preview.body`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from webapp.pipeline import DEFAULT_ANTHROPIC_MODEL, DEFAULT_MODEL, dumps_json
from webapp.render import highlight_json, markdown_to_html
from webapp.tokens import TokenCount, count_tokens

from .shown_text import shown_part

#: Characters of a long string a cut body shows.
BODY_CUT = 2_000


def cut_strings(value: Any, limit: int) -> Any:
    """`value` with each string longer than `limit` cut to `limit` characters and
    `… [412,345 characters in all]` (dicts and lists are copied, the rest kept)."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        return f"{value[:limit]}… [{len(value):,} characters in all]"
    if isinstance(value, dict):
        return {key: cut_strings(item, limit) for key, item in value.items()}
    if isinstance(value, list):
        return [cut_strings(item, limit) for item in value]
    return value


@dataclass(frozen=True, slots=True)
class Models:
    """The model names written into the example request bodies."""

    openai: str = DEFAULT_MODEL
    anthropic: str = DEFAULT_ANTHROPIC_MODEL
    anthropic_max_tokens: int = 1024


@dataclass(frozen=True, slots=True)
class MessageCard:
    role: str
    content: str
    chars: int
    tokens: TokenCount
    #: Characters of the message left out of `content` (a saved entry of megabytes).
    hidden: int = 0

    @property
    def html(self) -> Markup:
        """The content rendered, when a template asks: a large document's Document tab
        shows a window of it (`document_window`), and rendering it all for the first time
        costs about a second for half a megabyte."""
        return markdown_to_html(self.content)


@dataclass(frozen=True, slots=True)
class RequestBody:
    """A request's body; `cut` (a large document's) shows its long strings cut to that
    many characters (`cut_strings`), the whole body is a link away."""

    name: str
    slug: str
    value: dict[str, Any]
    note: str | None = None
    cut: int = 0

    @property
    def html(self) -> Markup:
        """The body as the tab shows it: highlighted, cut if `cut` (made when shown)."""
        return highlight_json(cut_strings(self.value, self.cut) if self.cut else self.value)

    @property
    def text(self) -> str:
        """The body as indented JSON (the tab shows `html`, the same text highlighted)."""
        return dumps_json(self.value, indent=2)


def message_card(message: dict[str, str], shown: int | None = None) -> MessageCard:
    """A message's card; with `shown`, its content cut to about that many characters
    (`shown_text.shown_part`), its size and tokens those of the whole message."""
    content = message["content"]
    part, hidden = (content, 0) if shown is None else shown_part(content, max(shown, 0))
    return MessageCard(message["role"], part, len(content), count_tokens(content), hidden)


def messages_text(messages: list[dict[str, str]]) -> str:
    """The messages as text to diff: a header line per message, then its content verbatim."""
    parts = []
    for i, message in enumerate(messages, 1):
        parts.append(f"─── message {i}: {message['role']} ───\n{message['content']}")
    return "\n".join(parts)


def request_bodies(messages: list[dict[str, str]], models: Models, cut: int = 0
                   ) -> list[RequestBody]:
    """The request body in OpenAI's chat shape and in Anthropic's Messages shape (`cut`:
    shown with long strings cut, see `RequestBody`)."""
    openai = {"model": models.openai, "messages": messages}
    system = [m["content"] for m in messages if m["role"] == "system"]
    rest = [m for m in messages if m["role"] != "system"]
    anthropic: dict[str, Any] = {"model": models.anthropic,
                                 "max_tokens": models.anthropic_max_tokens}
    if system:
        anthropic["system"] = "\n\n".join(system)
    anthropic["messages"] = rest
    note = None
    first_other = next((i for i, m in enumerate(messages) if m["role"] != "system"), len(messages))
    if any(m["role"] == "system" for m in messages[first_other:]):
        note = ("Anthropic takes one top-level system prompt: the system messages that come "
                "after other messages were moved into it.")
    return [
        RequestBody("OpenAI chat completions", "openai", openai, None, cut),
        RequestBody("Anthropic Messages", "anthropic", anthropic, note, cut),
    ]
