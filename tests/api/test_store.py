"""The store's API keys and labels: tokens kept as hashes, scopes, revoking, throttling;
labels moved by publishing and by hand, resolved, and the reviewer rule on production."""

from __future__ import annotations

from datetime import timedelta

import pytest

from webapp import store
from webapp.schema import api_models
from webapp.schema.models import utcnow
from webapp.store import api_keys, labels


@pytest.fixture
def published(session) -> str:
    """Agent `demo` published twice: #1 (one skill) and #2 (two skills)."""
    store.create_agent(session, "demo")
    store.create_skill(session, "demo", "chat", triggers=["dm"], content="Hello.\n")
    store.publish(session, "demo", "first", 0)
    store.create_skill(session, "demo", "more", triggers=["dm"], content="More.\n")
    store.publish(session, "demo", "second", 1)
    return "demo"


def test_a_token_is_random_shown_once_and_kept_as_its_hash(session):
    made = api_keys.create_key(session, "runtime", ["read", "assemble"])
    other = api_keys.create_key(session, "runtime", ["read"])
    assert made.token.startswith("se_") and len(made.token) >= 3 + 43
    assert made.token != other.token
    row = session.get(api_models.ApiKey, made.key.id)
    assert row.token_hash == api_keys.hash_token(made.token)
    assert made.token not in {row.token_hash, row.name, row.scopes}
    assert api_keys.scopes_of(row) == ("read", "assemble")


def test_authenticate_finds_the_key_and_notes_its_use(session):
    made = api_keys.create_key(session, "", ["read"])
    grant = api_keys.authenticate(session, made.token, "10.0.0.1")
    assert grant == api_keys.Grant(made.key.id, ("read",))
    session.refresh(made.key)
    assert made.key.last_used_at is not None


@pytest.mark.parametrize("token", [None, "", "se_wrong", "é" * 10, "x" * 1000])
def test_no_key_or_a_wrong_one_is_refused(session, token):
    with pytest.raises(api_keys.BadKey):
        api_keys.authenticate(session, token, "10.0.0.1")


def test_a_revoked_key_is_refused_at_once(session):
    made = api_keys.create_key(session, "", ["read"])
    api_keys.revoke_key(session, made.key.id)
    with pytest.raises(api_keys.BadKey):
        api_keys.authenticate(session, made.token, "10.0.0.1")
    listed = {key.id: key for key, _ in api_keys.list_keys(session)}
    assert listed[made.key.id].revoked_at is not None


def test_failures_are_throttled_like_sign_ins_per_address(session):
    made = api_keys.create_key(session, "", ["read"])
    now = utcnow()
    for _ in range(store.throttling.FREE_FAILURES):
        with pytest.raises(api_keys.BadKey):
            api_keys.authenticate(session, "se_guess", "10.0.0.9", now=now)
    with pytest.raises(store.Throttled):
        api_keys.authenticate(session, "se_guess", "10.0.0.9", now=now)
    # A live key is not held up (guessing one is hopeless), nor another address.
    assert api_keys.authenticate(session, made.token, "10.0.0.9", now=now).key_id == made.key.id
    with pytest.raises(api_keys.BadKey):
        api_keys.authenticate(session, "se_guess", "10.0.0.1", now=now)
    # The wait ends.
    later = now + store.throttling.LONGEST_WAIT + timedelta(seconds=1)
    with pytest.raises(api_keys.BadKey):
        api_keys.authenticate(session, "se_guess", "10.0.0.9", now=later)


def test_a_key_for_one_agent_allows_only_it(session, published):
    store.create_agent(session, "other")
    made = api_keys.create_key(session, "", ["read"], published)
    everyone = api_keys.create_key(session, "", ["read"])
    demo, other = store.get_agent(session, "demo"), store.get_agent(session, "other")
    assert api_keys.authenticate(session, made.token, "10.0.0.1", "demo").agent_id == demo.id
    assert api_keys.authenticate(session, everyone.token, "10.0.0.1", "other").agent_id == other.id
    # Another agent's, one in the trash and one that does not exist: the same NotFound.
    store.delete_agent(session, "other")
    for agent in ("other", "nobody"):
        with pytest.raises(store.NotFound):
            api_keys.authenticate(session, made.token, "10.0.0.1", agent)
    with pytest.raises(store.NotFound):
        api_keys.authenticate(session, everyone.token, "10.0.0.1", "other")


def test_the_key_is_read_with_the_label_it_asks_for(session, published):
    made = api_keys.create_key(session, "", ["read"], published)
    grant = api_keys.authenticate(session, made.token, "10.0.0.1", "demo", label="production")
    assert grant.labelled == store.resolve(session, "demo", "production")
    missing = api_keys.authenticate(session, made.token, "10.0.0.1", "demo", label="staging")
    assert missing.labelled is None


@pytest.mark.parametrize(("scopes", "name", "field"), [
    ([], "", "scopes"), (["read", "admin"], "", "scopes"), (["read"], "n" * 101, "name"),
    (["read"], "a\x00b", "name")])
def test_a_key_the_rules_refuse_is_not_made(session, scopes, name, field):
    with pytest.raises(store.ValidationError) as refused:
        api_keys.create_key(session, name, scopes)
    assert field in refused.value.errors
    assert api_keys.list_keys(session) == []


def test_a_key_for_a_missing_agent_is_not_made(session):
    with pytest.raises(store.NotFound):
        api_keys.create_key(session, "", ["read"], "nobody")


def test_publishing_moves_production_and_a_named_label(session, published):
    assert store.resolve(session, published, "production").number == 2
    store.create_skill(session, published, "third", triggers=["dm"], content="3\n")
    store.publish(session, published, "to staging", 2, label="staging")
    assert store.resolve(session, published, "production").number == 2
    assert store.resolve(session, published, "staging").number == 3
    assert store.resolve(session, published, "latest").number == 3
    assert store.resolve(session, published, "1").number == 1
    by_snapshot = labels.labels_by_snapshot(session, published)
    numbers = {s.id: s.number for s in store.list_snapshots(session, published)}
    assert {numbers[k]: v for k, v in by_snapshot.items()} == {2: ["production"], 3: ["staging"]}


def test_moving_a_label_back_is_the_rollback_and_is_recorded(session, published):
    store.move_label(session, published, "production", 1)
    assert store.resolve(session, published, "production").number == 1
    assert len(store.list_snapshots(session, published)) == 2  # no new number
    moves = [row for row in store.list_activity(session, agent=published)
             if row.kind == "label.move"]
    assert moves[0].subject == "production" and moves[0].detail == "to #1 (was #2)"


@pytest.mark.parametrize("ref", ["production2", "nope", "0", "99"])
def test_a_reference_to_nothing_is_not_found(session, published, ref):
    with pytest.raises(store.NotFound):
        store.resolve(session, published, ref)


@pytest.mark.parametrize("name", ["", "Prod", "12", "latest", "draft", "a b", "x" * 65])
def test_a_label_the_rules_refuse_is_not_moved(session, published, name):
    with pytest.raises(store.ValidationError):
        store.move_label(session, published, name, 1)


def test_moving_production_needs_a_reviewer(session, published):
    store.accounts.create_user(session, store.NewUser("boss", "admin", "a long password!"))
    store.accounts.create_user(session, store.NewUser("ann", "author", "a long password!"))
    store.accounts.create_user(session, store.NewUser("rev", "reviewer", "a long password!"))
    with store.acting_as("ann"):
        with pytest.raises(store.ValidationError):
            store.move_label(session, published, "production", 1)
        store.move_label(session, published, "staging", 1)  # another label: an author's
    with store.acting_as("rev"):
        store.move_label(session, published, "production", 1)
    assert store.resolve(session, published, "production").number == 1


def test_a_refused_label_publishes_nothing(session, published):
    store.create_skill(session, published, "third", triggers=["dm"], content="3\n")
    with pytest.raises(store.ValidationError):
        store.publish(session, published, "", 2, label="Not A Label")
    assert store.latest_snapshot(session, published).number == 2
