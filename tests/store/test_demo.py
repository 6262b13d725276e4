"""The demo workspace a fresh database is seeded with."""

from __future__ import annotations

import pytest

from webapp import store
from webapp.demo import DEMO_BUNDLES, seed_demo
from webapp.pipeline import assemble


def test_seed_imports_every_demo_bundle_once(session):
    seeded = seed_demo(session)
    expected = ["Relay Watch"] + (["Simon"] if DEMO_BUNDLES[0].exists() else [])
    assert sorted(seeded) == sorted(expected)
    assert seed_demo(session) == []
    assert sorted(a.name for a in store.list_agents(session)) == sorted(expected)


def test_seed_skips_a_missing_bundle(session, tmp_path, caplog):
    assert seed_demo(session, (tmp_path / "nope.json",)) == []
    assert "nope.json is missing" in caplog.text


@pytest.fixture
def relay_watch(session):
    seed_demo(session, DEMO_BUNDLES[1:])
    return store.load_workspace(session, "Relay Watch")


def test_relay_watch_shows_every_feature(relay_watch):
    cron = relay_watch.scenarios_by_name["nightly relay check"]
    assert cron.trigger == "cron" and cron.event
    assert {"nostr_admin_notes", "nostr_admin_relays"} <= set(relay_watch.tools_by_name)
    assert "admin_notes" in relay_watch.variables_by_name
    dm_reply = relay_watch.skills_by_tag["dm-reply"].content
    assert "---template---" in dm_reply and "skip_if_empty: true" in dm_reply
    assert "role: expand" in dm_reply
    assert not relay_watch.skills_by_tag["debug-dump"].enabled


def test_relay_watch_diagnostics_catch_the_typo_and_skip_the_empty_section(relay_watch):
    cron = assemble(relay_watch, "nightly relay check")
    typo = [d for d in cron.diagnostics if d.code == "unknown-variable"]
    assert len(typo) == 1 and "admin_notes" in typo[0].message
    assert typo[0].skill == "relay-check"
    assert "wss://relay.damus.io" in cron.document and "Triggering event:" in cron.document

    dm = assemble(relay_watch, "admin asks about latency")
    assert [d.code for d in dm.diagnostics] == ["section-skipped"]
    roles = [m["role"] for m in dm.messages]
    assert roles.count("assistant") == 2, "the DM history is expanded into messages"
    assert dm.messages[-1] == {"role": "user", "content": "Is damus slow again?"}
