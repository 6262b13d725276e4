"""The lint and the catalogue read one judgement a client (`agentskills.listing`): a client
the lint says skips a skill (or does not list it) leaves it out of its catalogue, and only
then; a description the lint says a client cuts is the one its listing cuts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.agentskills import CLIENTS, catalogue, lint_skill, read_skill_md

_NAMES = st.sampled_from([None, "''", "s", "s" * 70])
_DESCRIPTIONS = st.sampled_from([
    None, "''", "Short.",
    "'" + "a  " * 400 + "'",   # 1,200 characters, 800 once spaces are collapsed (Codex)
    "'" + "word " * 220 + "'",  # 1,100 characters either way
    "'" + "word " * 340 + "'",  # over Claude Code's 1,536 for an entry
])
_SHORT = st.sampled_from([None, "x" * 600, "x" * 10])
_WHEN = st.sampled_from([None, "'" + "when " * 200 + "'"])


def skill_md(name, description, short, hidden, when) -> str:
    lines = ["---"]
    lines += [f"name: {name}"] if name is not None else []
    lines += [f"description: {description}"] if description is not None else []
    lines += ["metadata:", "  d_tag: s"] + ([f"  short-description: {short}"] if short else [])
    lines += ["disable-model-invocation: true"] if hidden else []
    lines += [f"when_to_use: {when}"] if when is not None else []
    return "\n".join(lines + ["---", "", "Body.", ""])


@settings(max_examples=150, deadline=None)
@given(name=_NAMES, description=_DESCRIPTIONS, short=_SHORT, hidden=st.booleans(), when=_WHEN)
def test_the_lint_says_a_client_leaves_a_skill_out_exactly_when_its_catalogue_does(
        name, description, short, hidden, when):
    read = read_skill_md(skill_md(name, description, short, hidden, when), folder="s")
    messages = [p.message for p in lint_skill(read.skill, read.head, (), list(CLIENTS))]
    for client in CLIENTS.values():
        listing = catalogue(client.id, [(read.skill, read.head)], 200_000)
        said = any(f"{client.name} skips the skill" in m
                   or f"{client.name} does not list the skill" in m for m in messages)
        assert said == bool(listing.hidden), (client.id, messages, listing.left_out)
        cut = any(f"{client.name} lists only its first" in m for m in messages)
        assert cut == any(e.cut for e in listing.listed), (client.id, messages)


def test_codex_skips_a_long_description_in_both():
    """The issue's case: the lint said Codex skips it while its catalogue counted it."""
    read = read_skill_md(skill_md("s", "'" + "word " * 220 + "'", None, False, None))
    messages = [p.message for p in lint_skill(read.skill, read.head, (), ["codex"])]
    assert any("Codex skips the skill" in m for m in messages)
    codex = catalogue("codex", [(read.skill, read.head)], 200_000)
    assert codex.listed == () and codex.left_out == [("s", "description-too-long")]
