"""Published snapshots: numbering, digest, rollback, conflicts, what changed since."""

from __future__ import annotations

import hashlib
import threading

import pytest

from webapp import store
from webapp.pipeline import bundle_text, dump_bundle
from webapp.store import parsed_snapshots


@pytest.fixture
def reviewers(session, cheap_hashes) -> tuple[str, str]:
    """The reviewers `rita` and `sam` (and the admin the first account must be)."""
    for name, role in (("root", "admin"), ("rita", "reviewer"), ("sam", "reviewer")):
        store.accounts.create_user(session, store.NewUser(name, role, "x" * 12))
    return "rita", "sam"


def _export_digest(session, agent) -> str:
    return hashlib.sha256(bundle_text(store.export_bundle(session, agent)).encode()).hexdigest()


def test_publish_numbers_snapshots_and_records_who_when_and_why(session, agent, reviewers):
    with store.acting_as("rita"):
        first = store.publish(session, agent, "First review", expected_latest=0)
    assert (first.number, first.note, first.published_by, first.republished) == (
        1, "First review", "rita", None)
    assert first.published_at.tzinfo is not None
    assert first.bundle == bundle_text(store.export_bundle(session, agent))
    assert first.digest == _export_digest(session, agent)
    assert first.skill_versions == {"intro": 1, "chat": 1, "other": 1}

    store.save_skill(session, agent, "chat", expected_version=1, content="system:\nnew\n")
    second = store.publish(session, agent, "  second\r\n", expected_latest=1)
    assert (second.number, second.note, second.published_by) == (2, "second", None)
    assert [s.number for s in store.list_snapshots(session, agent)] == [2, 1]
    assert store.get_snapshot(session, agent).number == 2
    assert store.get_snapshot(session, agent, 1).digest == first.digest


def test_publishing_an_unchanged_workspace_is_refused(session, agent):
    store.publish(session, agent, "", expected_latest=0)
    with pytest.raises(store.ValidationError, match="snapshot #1"):
        store.publish(session, agent, "again", expected_latest=1)
    assert len(store.list_snapshots(session, agent)) == 1


@pytest.mark.parametrize("note", ["nul \x00 inside", "x" * 2001])
def test_a_note_the_store_cannot_keep_is_refused(session, agent, note):
    with pytest.raises(store.ValidationError) as caught:
        store.publish(session, agent, note, expected_latest=0)
    assert [field for field, _ in caught.value.problems] == ["note"]
    assert store.list_snapshots(session, agent) == []


def test_a_publish_from_a_stale_latest_number_conflicts(session, agent):
    store.publish(session, agent, "one", expected_latest=0)
    store.save_skill(session, agent, "chat", expected_version=1, content="changed\n")
    with pytest.raises(store.PublishConflict) as caught:
        store.publish(session, agent, "mine", expected_latest=0)
    assert (caught.value.expected_latest, caught.value.latest) == (0, 1)
    assert isinstance(caught.value, store.Conflict)
    assert len(store.list_snapshots(session, agent)) == 1


def test_two_reviewers_publishing_at_once_one_wins(session_factory, session, agent,
                                                  reviewers):
    """Both start from "no snapshot"; the database decides: one number 1, one conflict."""
    barrier = threading.Barrier(2)
    outcomes: dict[str, object] = {}

    def reviewer(name: str) -> None:
        with session_factory() as own, store.acting_as(name):
            store.latest_snapshot(own, agent)  # both have read the latest before either writes
            barrier.wait()
            try:
                outcomes[name] = store.publish(own, agent, f"by {name}", expected_latest=0).number
            except store.PublishConflict as exc:
                outcomes[name] = exc
            except Exception as exc:  # noqa: BLE001 - reported below
                outcomes[name] = repr(exc)

    threads = [threading.Thread(target=reviewer, args=(n,)) for n in ("rita", "sam")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    won = [name for name, outcome in outcomes.items() if outcome == 1]
    lost = [outcome for outcome in outcomes.values() if isinstance(outcome, store.PublishConflict)]
    assert len(won) == 1 and len(lost) == 1, outcomes
    assert lost[0].latest == 1
    (snapshot,) = store.list_snapshots(session, agent)
    assert snapshot.published_by == won[0]


def test_republish_is_the_rollback_and_leaves_the_draft_alone(session, agent, reviewers):
    first = store.publish(session, agent, "good", expected_latest=0)
    store.save_skill(session, agent, "chat", expected_version=1, content="bad\n")
    store.publish(session, agent, "bad", expected_latest=1)
    with store.acting_as("rita"):
        rollback = store.republish(session, agent, 1, "back to good", expected_latest=2)
    assert (rollback.number, rollback.republished, rollback.published_by) == (3, 1, "rita")
    assert rollback.digest == first.digest and rollback.bundle == first.bundle
    assert rollback.skill_versions == first.skill_versions
    published = store.published_workspace(session, agent)
    assert published.skills_by_tag["chat"].content == "system:\n{{intro}}\n\nuser:\n{{message}}\n"
    assert store.get_skill(session, agent, "chat").content == "bad\n", "the draft stays"
    assert store.has_unpublished_changes(session, agent)
    with pytest.raises(store.ValidationError):  # #3 already holds #1's content
        store.republish(session, agent, 1, "", expected_latest=3)
    with pytest.raises(store.NotFound):
        store.republish(session, agent, 9, "", expected_latest=3)


def test_the_round_trip_published_workspace_exports_as_it_was_published(session, agent):
    before = dump_bundle(store.load_workspace(session, agent))
    store.publish(session, agent, "", expected_latest=0)
    store.save_skill(session, agent, "intro", expected_version=1, content="Changed.\n")
    assert dump_bundle(store.published_workspace(session, agent)) == before
    assert dump_bundle(store.published_workspace(session, agent, 1)) == before
    assert dump_bundle(store.load_workspace(session, agent)) != before


def test_a_snapshot_is_parsed_once_whatever_reads_it(session, agent, monkeypatch):
    """A published snapshot never changes: its snapshot page, a comparison with it and the
    Changes page read one parse of its bundle, kept by its id and digest."""
    parses = []
    parse = parsed_snapshots.parse_json
    monkeypatch.setattr(parsed_snapshots, "parse_json",
                        lambda text: parses.append(text) or parse(text))
    monkeypatch.setattr(parsed_snapshots, "_parsed", type(parsed_snapshots._parsed)(
        "parsed snapshots", 32_000_000, weight=lambda key, parsed: parsed.chars))
    before = store.load_workspace(session, agent)
    store.publish(session, agent, "", expected_latest=0)
    store.save_skill(session, agent, "intro", expected_version=1, content="Changed.\n")
    store.publish(session, agent, "", expected_latest=1)
    for _ in range(2):
        assert store.published_workspace(session, agent, 1) == before
        assert store.read_side(session, agent, "1").workspace == before
    assert len(parses) == 1
    assert store.read_side(session, agent, "2").workspace != before
    assert len(parses) == 2


def test_the_digest_is_stable_and_canonical(session, agent, full_bundle):
    digest = store.current_digest(session, agent)
    assert store.current_digest(session, agent) == digest
    assert digest == _export_digest(session, agent)
    assert len(digest) == 64 and int(digest, 16) >= 0
    # The same bundle imported twice gives the same digest, the digest of the bundle's
    # own canonical text: it depends on the content only, not on row ids or times.
    store.import_bundle(session, full_bundle)
    imported = store.current_digest(session, "Tester")
    store.delete_agent(session, "Tester")
    store.purge_agent(session, "Tester")
    store.import_bundle(session, full_bundle)
    assert store.current_digest(session, "Tester") == imported
    assert imported == hashlib.sha256(bundle_text(full_bundle).encode()).hexdigest()
    store.update_agent(session, "Tester", title="Other title")
    assert store.current_digest(session, "Tester") != imported


def test_has_unpublished_changes_follows_the_digest(session, agent):
    assert store.has_unpublished_changes(session, agent), "never published"
    store.publish(session, agent, "", expected_latest=0)
    assert not store.has_unpublished_changes(session, agent)
    store.save_skill(session, agent, "other", expected_version=1, content="Other.\n")
    assert store.has_unpublished_changes(session, agent)
    store.save_skill(session, agent, "other", expected_version=2,
                     content="Other {{ intro }} text.\n")
    assert not store.has_unpublished_changes(session, agent), "same content, same digest"


def test_changes_since_lists_skills_with_their_versions_and_revisions(session, agent):
    store.create_tool(session, agent, "lookup", result={"success": True, "content": "a"})
    store.create_scenario(session, agent, "hello", trigger="dm", message="hi")
    store.publish(session, agent, "", expected_latest=0)
    store.save_skill(session, agent, "chat", expected_version=1, content="v2\n")
    store.save_skill(session, agent, "chat", expected_version=2, content="v3\n")
    store.create_skill(session, agent, "fresh", content="new\n", triggers=["dm"])
    store.delete_skill(session, agent, "other")
    store.update_tool(session, agent, "lookup", result={"success": True, "content": "b"})
    store.create_variable(session, agent, "found", tool="lookup")
    store.delete_scenario(session, agent, "hello")
    changes = store.changes_since(session, agent)
    by_tag = {c.d_tag: c for c in changes.skills}
    assert set(by_tag) == {"chat", "fresh", "other"}
    chat = by_tag["chat"]
    assert (chat.published_version, chat.current_version) == (1, 3)
    assert [r.version for r in chat.revisions] == [2, 3]
    assert (by_tag["fresh"].published_version, by_tag["fresh"].current_version) == (None, 1)
    assert [r.version for r in by_tag["fresh"].revisions] == [1]
    assert (by_tag["other"].published_version, by_tag["other"].current_version) == (1, None)
    assert chat.authors == ["local"] == store.changed_by(chat.revisions)
    assert {(i.section, i.name, i.state) for i in changes.items} == {
        ("tools", "lookup", "changed"), ("variables", "found", "added"),
        ("scenarios", "hello", "removed")}
    assert not changes.settings
    assert changes.order  # `other` left the adoption order, `fresh` joined it
    store.update_agent(session, agent, model="claude-haiku-4-5")
    assert store.changes_since(session, agent).settings


def test_changes_and_compare_are_one_comparison(session, agent):
    """The Changes page and Compare read the same comparison: a skill saved and saved
    back to its published text is no change on either (nor for the digest); a skill whose
    text differs is one on both, with every save since the snapshot."""
    store.publish(session, agent, "", expected_latest=0)
    published = store.get_skill(session, agent, "chat").content
    store.save_skill(session, agent, "chat", expected_version=1, content="for a while\n")
    store.save_skill(session, agent, "chat", expected_version=2, content=published)

    def both() -> tuple[list[str], list[str]]:
        compare = store.differences(store.read_side(session, agent, "1"),
                                    store.read_side(session, agent, "draft"))
        return ([c.d_tag for c in store.changes_since(session, agent).skills],
                [d.d_tag for d in compare.skills])

    assert both() == ([], []) and not store.has_unpublished_changes(session, agent)
    store.save_skill(session, agent, "chat", expected_version=3, content="now changed\n")
    assert both() == (["chat"], ["chat"])
    chat = store.changes_since(session, agent).skills[0]
    assert (chat.published_version, chat.current_version) == (1, 4)
    assert [r.version for r in chat.revisions] == [2, 3, 4]


def test_no_snapshot_is_a_clear_not_found(session, agent):
    for call in (lambda: store.published_workspace(session, agent),
                 lambda: store.get_snapshot(session, agent),
                 lambda: store.changes_since(session, agent),
                 lambda: store.get_snapshot(session, agent, 1)):
        with pytest.raises(store.NotFound, match="snapshot"):
            call()


def test_snapshots_go_with_their_agent(session, agent):
    store.publish(session, agent, "", expected_latest=0)
    store.delete_agent(session, agent)
    store.purge_agent(session, agent)
    store.create_agent(session, agent)
    assert store.list_snapshots(session, agent) == []


def test_log_entries_record_their_source(session, agent):
    from webapp.pipeline import assemble

    context = assemble(store.load_workspace(session, agent))
    assert store.log_context(session, agent, context).source == store.DRAFT == "draft"
    entry = store.log_context(session, agent, context, source=store.published_source(3))
    assert entry.source == "published 3"
    assert [e.source for e in store.list_log(session, agent)] == ["published 3", "draft"]
