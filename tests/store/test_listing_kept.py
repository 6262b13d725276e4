"""Each skill's catalogue listing is kept on its row by every write (created, saved, its
frontmatter edited, restored), as `agentskills.listing_facts` computes it from the skill and
its head: the Problems tab reads it instead of the other skills' heads."""

from __future__ import annotations

from webapp import agentskills, store


def kept(session, d_tag: str) -> tuple[dict, dict]:
    """The listing kept on the row, and the one its skill and head give now."""
    row = store.get_skill(session, "Docs", d_tag)
    return row.listing, agentskills.listing_facts(store.skill_of(row), row.frontmatter)


def test_every_write_keeps_the_listing(session):
    store.create_agent(session, "Docs")
    store.create_skill(session, "Docs", "notes", content="Notes.\n", description="Takes notes.")
    listing, now = kept(session, "notes")
    assert listing == now and set(listing) == set(agentskills.CLIENTS)
    assert listing["codex"][1] == len("Takes notes.")

    # A description Codex skips: not in its listing any more.
    store.save_skill(session, "Docs", "notes", expected_version=1, content="Notes.\n",
                     description="word " * 220)
    listing, now = kept(session, "notes")
    assert listing == now and "codex" not in listing and "claude-code" in listing

    # The frontmatter edited by hand: Claude Code no longer lists it.
    store.save_frontmatter(session, "Docs", "notes",
                           "name: notes\ndescription: Short.\ndisable-model-invocation: true\n",
                           expected_version=2)
    listing, now = kept(session, "notes")
    assert listing == now and "claude-code" not in listing and "codex" in listing

    store.restore_revision(session, "Docs", "notes", 1, expected_version=3)
    listing, now = kept(session, "notes")
    assert listing == now and listing["codex"][1] == len("Takes notes.")
