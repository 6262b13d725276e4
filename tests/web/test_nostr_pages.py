"""An agent's Nostr page and the import from Nostr, as page and fragment: the settings
form (saved, refused as sent), the events handed to a signer and taken back only when they
are exactly those events signed by the agent's key, the publish report per relay and
event, the import preview (new, changed with a diff, no longer adopted) and applying it,
with CSRF and roles. Relays are real (LocalRelay on 127.0.0.1)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nostr_sdk
import pytest

from tests.support.pages import HTMX, diffs_shown_once, is_page
from tests.support.relay import local_relay
from webapp import store
from webapp.nostr import sign
from webapp.schema import db
from webapp.store.nostr import NostrSettings

KEYS = nostr_sdk.Keys.generate()
PUBKEY = KEYS.public_key().to_hex()
NPUB = KEYS.public_key().to_bech32()


def setup_nostr(app, agent: str, relays: tuple[str, ...] = (), published: bool = True) -> None:
    with app.app_context():
        session = db.get_session()
        if published:
            store.publish(session, agent, "first", expected_latest=0, override="demo")
        store.nostr.set_nostr(session, agent, NostrSettings(PUBKEY, relays))


def signed_events(client, agent: str, keys=KEYS) -> list[dict]:
    answer = client.get(f"/agents/{agent}/nostr/events")
    assert answer.status_code == 200
    return [sign(event, keys) for event in answer.get_json()["events"]]


def test_the_page_and_its_fragment(app, client, simon):
    page = client.get(f"/agents/{simon}/nostr")
    assert is_page(page) and "Simon on Nostr" in page.text and "No key yet" in page.text
    assert "publish a snapshot</a> first" in page.text
    fragment = client.get(f"/agents/{simon}/nostr", headers=HTMX)
    assert not is_page(fragment) and fragment.text.lstrip().startswith('<section id="nostr"')
    setup_nostr(app, simon)
    page = client.get(f"/agents/{simon}/nostr").text
    assert NPUB in page and "Sign and publish to relays" in page and "nostr.js" in page
    assert NPUB in client.get(f"/agents/{simon}/settings").text, "Settings shows the npub"


def test_settings_are_saved_and_a_refused_form_comes_back_as_sent(app, client, csrf, simon):
    form = {"csrf_token": csrf, "npub": NPUB, "relays": "wss://relay.example.com\n",
            "kind_skill": "31123", "kind_embedded": "31124", "kind_adoption": "10123",
            "kind_settings": "31120"}
    saved = client.post(f"/agents/{simon}/nostr", data=form)
    assert saved.status_code == 303
    with app.app_context():
        settings = store.nostr.nostr_settings(db.get_session(), simon)
    assert settings.pubkey == PUBKEY and settings.relays == ("wss://relay.example.com",)
    refused = client.post(f"/agents/{simon}/nostr", data={
        **form, "relays": "ws://example.com/kept", "kind_adoption": "31125"})
    assert refused.status_code == 422
    assert "ws://example.com/kept" in refused.text and 'value="31125"' in refused.text
    assert 'id="error-relays"' in refused.text and 'id="error-adoption"' in refused.text
    words = client.post(f"/agents/{simon}/nostr", data={**form, "kind_skill": "many"})
    assert words.status_code == 422 and "kinds are whole numbers" in words.text
    no_csrf = client.post(f"/agents/{simon}/nostr", data={**form, "csrf_token": "forged"})
    assert no_csrf.status_code in (400, 403)


def test_publishing_signed_events_reports_each_relay_and_event(app, client, csrf, simon):
    with local_relay() as url:
        setup_nostr(app, simon, (url,))
        events = signed_events(client, simon)
        answer = client.post(f"/agents/{simon}/nostr/publish", json={"snapshot": 1,
                                                                       "events": events},
                             headers={"X-CSRFToken": csrf, **HTMX})
    assert answer.status_code == 200 and not is_page(answer)
    assert answer.text.count("<td>accepted</td>") == len(events)
    assert "Snapshot 1: 5 of 5 on the relays" in answer.text
    with app.app_context():
        assert store.list_activity(db.get_session(), limit=1)[0].kind == "nostr.publish"


@pytest.mark.parametrize(("change", "reason"), [
    (lambda events: events[:-1], "expected a list of 5 signed events"),
    (lambda events: [{**events[0], "content": "Other text."}, *events[1:]], "wrong id"),
    (lambda events: [sign({**events[0], "content": "Other."}, KEYS), *events[1:]],
     "is not the event that was given to sign"),
    (lambda events: "nope", "expected a list"),
])
def test_only_the_events_given_come_back(app, client, csrf, simon, change, reason):
    setup_nostr(app, simon, ("ws://127.0.0.1:9",))
    events = change(signed_events(client, simon))
    answer = client.post(f"/agents/{simon}/nostr/publish", json={"events": events},
                         headers={"X-CSRFToken": csrf, **HTMX})
    assert answer.status_code == 422 and reason in answer.text and "Nothing was sent" in answer.text


def test_events_signed_by_another_key_are_refused(app, client, csrf, simon):
    setup_nostr(app, simon, ("ws://127.0.0.1:9",))
    other = nostr_sdk.Keys.generate()
    events = [sign({**e, "pubkey": other.public_key().to_hex()}, other)
              for e in client.get(f"/agents/{simon}/nostr/events").get_json()["events"]]
    answer = client.post(f"/agents/{simon}/nostr/publish", json={"events": events},
                         headers={"X-CSRFToken": csrf, **HTMX})
    assert answer.status_code == 422 and "is not the event that was given" in answer.text


@pytest.mark.parametrize(("published", "key", "path", "status"), [
    (False, True, "/events", 404),
    (True, False, "/events", 422),
    (True, True, "/events?snapshot=9", 404),
    (True, True, "/events?snapshot=x", 404),
    (True, True, "/events?snapshot=%C2%B2", 404),
    (True, True, "/events?snapshot=latest", 200),
])
def test_events_without_a_snapshot_or_key(app, client, simon, published, key, path, status):
    with app.app_context():
        session = db.get_session()
        if published:
            store.publish(session, simon, "first", expected_latest=0, override="demo")
        if key:
            store.nostr.set_nostr(session, simon, NostrSettings(PUBKEY))
    assert client.get(f"/agents/{simon}/nostr{path}").status_code == status


def test_publish_without_relays_or_json_is_refused(app, client, csrf, simon):
    setup_nostr(app, simon)
    events = signed_events(client, simon)
    headers = {"X-CSRFToken": csrf, **HTMX}
    answer = client.post(f"/agents/{simon}/nostr/publish", json={"events": events},
                         headers=headers)
    assert answer.status_code == 422 and "has no relays" in answer.text
    answer = client.post(f"/agents/{simon}/nostr/publish", data="x", headers=headers)
    assert answer.status_code == 400


def test_the_import_form_preview_and_apply(app, client, csrf, simon):
    with local_relay() as url:
        setup_nostr(app, simon, (url,))
        client.post(f"/agents/{simon}/nostr/publish", json={"events": signed_events(
            client, simon)}, headers={"X-CSRFToken": csrf, **HTMX})
        assert is_page(client.get("/nostr/import"))
        form = {"csrf_token": csrf, "address": NPUB, "relays": url, "agent_name": "Copy"}
        preview = client.post("/nostr/import", data=form, headers=HTMX)
        assert preview.status_code == 200 and not is_page(preview)
        assert "New agent Copy" in preview.text and preview.text.count("import-new") == 3
        events = json.loads(_hidden(preview.text, "events"))
        assert len(events) == 5
        with app.app_context():
            assert store.nostr.plan_import is not None
            assert [a.name for a in store.list_agents(db.get_session())] == ["Simon"]
        applied = client.post("/nostr/import/apply", data={
            "csrf_token": csrf, "events": json.dumps(events), "pubkey": PUBKEY,
            "agent_name": "Copy", "relays": url})
        assert applied.status_code == 303 and applied.headers["Location"].endswith("/agents/Copy")
        with app.app_context():
            session = db.get_session()
            assert store.export_bundle(session, "Copy")["skills"] == store.export_bundle(
                session, simon)["skills"]
        again = client.post("/nostr/import", data=form)
        assert "importing changes nothing" in again.text and "Apply import" not in again.text
        # Simon changed here: the preview of Simon shows the change with its diff.
        with app.app_context():
            session = db.get_session()
            row = store.get_skill(session, simon, "chat")
            store.save_skill(session, simon, "chat", expected_version=row.version,
                             content="system:\nEdited here.\n")
            store.create_skill(session, simon, "local", content="Only here.\n")
        preview = client.post("/nostr/import", data={**form, "agent_name": ""})
    assert "Update Simon" in preview.text and "import-changed" in preview.text
    assert diffs_shown_once(preview.text)  # unified or side by side, with the toggle
    assert "Edited" in preview.text and 'class="diff diff-unified"' in preview.text
    assert "Move local to the trash" in preview.text
    applied = client.post("/nostr/import/apply", data={
        "csrf_token": csrf, "events": _hidden(preview.text, "events"), "pubkey": PUBKEY,
        "trash": "local"})
    assert applied.status_code == 303
    with app.app_context():
        session = db.get_session()
        assert [r.d_tag for r in store.list_trash(session, simon)] == ["local"]


def _hidden(html: str, name: str) -> str:
    import html as html_lib
    import re
    return html_lib.unescape(re.search(rf'name="{name}" value="([^"]*)"', html)[1])


@pytest.mark.parametrize(("form", "status", "text"), [
    ({"address": "npub1nope", "relays": "ws://127.0.0.1:9"}, 422, "not a valid npub"),
    ({"address": NPUB, "relays": ""}, 422, "give a relay"),
    ({"address": NPUB, "relays": "ws://example.com"}, 422, "only for a relay on this machine"),
])
def test_a_refused_import_form(client, csrf, form, status, text):
    answer = client.post("/nostr/import", data={"csrf_token": csrf, **form})
    assert answer.status_code == status and text in answer.text


def test_an_import_from_a_relay_without_the_agent_is_refused(client, csrf):
    with local_relay() as url:
        answer = client.post("/nostr/import", data={"csrf_token": csrf, "address": NPUB,
                                                    "relays": url})
    assert answer.status_code == 422 and "Nothing can be imported" in answer.text
    assert "no valid adoption list" in answer.text


@pytest.mark.parametrize(("form", "text"), [
    ({"events": "not json", "pubkey": PUBKEY}, "did not come back"),
    ({"events": "[]", "pubkey": "nope"}, "not a public key"),
    ({"events": json.dumps([{"id": "x"}]), "pubkey": PUBKEY}, "no valid adoption list"),
])
def test_apply_checks_what_the_browser_sent_again(client, csrf, form, text):
    answer = client.post("/nostr/import/apply", data={"csrf_token": csrf, **form})
    assert answer.status_code in (400, 422) and text in answer.text


def test_the_specification_is_served(client):
    page = client.get("/help/nostr")
    assert is_page(page) and "Skills on Nostr" in page.text and "10123" in page.text
    fragment = client.get("/help/nostr", headers=HTMX)
    assert not is_page(fragment) and "Skills on Nostr" in fragment.text


def test_the_guide_says_31124_is_shared_and_names_the_page_s_kind_fields(client, simon):
    """docs/nostr.md warns that another application uses kind 31124, and tells how to
    choose other kinds with the fields the Nostr page really has."""
    guide = (Path(__file__).resolve().parents[2] / "docs" / "nostr.md").read_text("utf-8")
    assert "Another Nostr application also publishes kind 31124" in guide
    section = guide[guide.index("### Choosing other kinds"):]
    page = client.get(f"/agents/{simon}/nostr").text
    for field in re.findall(r"\*\*([^*]+)\*\*", section.split("\n\n")[1]):
        assert f"{field} <input" in page or f">{field}</button>" in page or field == "Nostr", (
            field)
