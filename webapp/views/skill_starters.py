"""The starting points the New skill form offers: what a new skill's text begins as.

Each is ordinary skill text the pipeline reads like any other (the tests assemble every
one without an error); `{name}` is the new skill's display name (else its d_tag) and
`{d_tag}` its d_tag.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Starter:
    """One starting point: its label on the form, the layer it suggests and its text."""

    key: str
    label: str
    layer: int
    text: str

    def content(self, d_tag: str, name: str) -> str:
        """The text for a skill with this `d_tag` and display `name`."""
        return self.text.replace("{name}", name or d_tag).replace("{d_tag}", d_tag)


STARTERS = (
    Starter("blank", "Blank", 1, ""),
    Starter("roles", "A role-marked skill (system and user messages)", 1,
            "system:\n# {name}\n\nSay what the agent should do here.\n\n"
            "user:\n{{message}}\n"),
    Starter("snippet", "A layer-2 snippet that other skills embed", 2,
            "Text that other skills embed where they write \\{{{d_tag}}}.\n"),
    Starter("sections", "A skill with template sections (history, tools, the message)", 1,
            "system:\n# {name}\n\nSay what the agent should do here.\n"
            "---template---\n"
            "- section: dm_history\n  role: expand\n  limit: 6\n"
            "- section: incoming\n  role: user\n  content: \"{{message}}\"\n"),
)
STARTERS_BY_KEY = {starter.key: starter for starter in STARTERS}
