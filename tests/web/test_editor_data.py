"""The code editor's data: the names of the editor page and the names route (what each
`{{name}}` is and gives), and the diagnostics of every preview (the edited skill's
problems, for the marks in its lines)."""

from __future__ import annotations

import json

from tests.support.pages import HTMX, Markup, executable_markup

PREVIEW = "/agents/Simon/skills/chat/preview"


def blocks(response) -> dict:
    """The JSON of each element with a `data-json` attribute, by the element's id."""
    return {attrs["id"]: json.loads(attrs["data-json"])
            for _, attrs in Markup(response.data.decode()).tags if "data-json" in attrs}


def test_the_editor_page_carries_the_names(client, simon):
    data = blocks(client.get("/agents/Simon/skills/chat"))["editor-names"]
    names = {n["name"]: n for n in data["names"]}
    assert data["scenario"] == "admin asks about mentions"
    assert names["agent_npub"]["kind"] == "binding"
    assert names["agent_npub"]["summary"].startswith("`npub1kfc89dlu9m05")
    assert names["identity"] | {"value": ""} == {
        "name": "identity", "kind": "skill", "detail": "layer 2, enabled: Identity",
        "summary": "You are {{agent_profile}}, a sovereign AI agent living on Nostr.",
        "value": "", "title": "Identity", "url": "/agents/Simon/skills/identity"}
    assert names["message"]["kind"] == "built-in"
    assert names["nostr_agent_profile"]["kind"] == "mock tool"
    assert "url" not in names["agent_npub"]
    assert data["template"]["roles"] == ["system", "user", "assistant", "expand"]
    assert "agent_identity" in data["template"]["tools"]
    assert "inline_code" in data["template"]["formats"]
    assert "content" in data["template"]["keys"]


def test_the_names_say_where_to_ask_again(client, simon):
    html = client.get("/agents/Simon/skills/chat").data.decode()
    assert '<div id="editor-names" hidden data-url="/agents/Simon/names" data-json="' in html


def test_a_preview_fragment_carries_the_diagnostics_but_not_the_names(client, simon,
                                                                       skill_form):
    content = "system:\nHello\n\nuser:\n{{message}}\nNpub: {{agnt_npub}}\n"
    response = client.post(PREVIEW, headers=HTMX, data=skill_form(content))
    data = blocks(response)
    assert "editor-names" not in data
    assert data["editor-diagnostics"] == {
        "skill": "chat", "scenario": "admin asks about mentions",
        "diagnostics": [{
            "severity": "warning", "code": "unknown-variable", "line": 6, "name": "agnt_npub",
            "suggestions": ["agent_npub"],
            "message": "`{{agnt_npub}}` matches no skill, variable or tool and was left empty;"
                       " did you mean `agent_npub`?"}]}


def test_the_page_carries_the_saved_skill_s_diagnostics(client, simon):
    data = blocks(client.get("/agents/Simon/skills/chat"))
    assert data["editor-diagnostics"]["diagnostics"] == []


def test_only_the_edited_skill_s_own_lines_are_marked(client, simon, skill_form):
    # personality embeds identity; a problem in identity's lines is not personality's.
    form = skill_form("system:\n{{identity}}\n{{nope_nope}}\n", d_tag="personality",
                      name="Personality")
    response = client.post("/agents/Simon/skills/personality/preview", headers=HTMX,
                           data=form)
    diagnostics = blocks(response)["editor-diagnostics"]["diagnostics"]
    assert [(d["line"], d["name"]) for d in diagnostics] == [(3, "nope_nope")]


def test_the_names_route_gives_the_values_for_a_scenario(client, relay_watch):
    url = "/agents/Relay Watch/names"
    first = client.get(url)
    assert first.status_code == 200 and first.mimetype == "application/json"
    assert first.headers["Cache-Control"] == "private, no-cache"
    names = {n["name"]: n for n in first.json["names"]}
    assert first.json["scenario"] == "nightly relay check"
    assert names["message"]["value"] == ""
    other = client.get(url, query_string={"scenario": "admin asks about latency"})
    assert {n["name"]: n for n in other.json["names"]}["message"]["value"] == (
        "Is damus slow again?")
    assert other.json["names"][0]["url"].endswith("?scenario=admin+asks+about+latency")
    # Cached by the browser, revalidated by its ETag.
    again = client.get(url, headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304


def test_the_names_route_of_an_unknown_agent_is_a_404(client, simon):
    assert client.get("/agents/Nobody/names").status_code == 404


def test_hostile_names_and_values_stay_data(app, client, simon, csrf):
    hostile = "</script><script>alert(1)</script><!--"
    client.post("/agents/Simon/tools/agent_identity", data={
        "csrf_token": csrf, "original": "agent_identity", "name": "agent_identity",
        "description": hostile,
        "result": json.dumps({"success": True, "content": {"npub": hostile}}),
        "results_by_args": "[]"})
    response = client.get("/agents/Simon/skills/chat")
    html = response.data.decode()
    assert executable_markup(html) == []
    assert "</script><script>" not in html
    names = {n["name"]: n for n in blocks(response)["editor-names"]["names"]}
    assert hostile in names["agent_identity"]["detail"]
    assert names["agent_npub"]["value"] == f"`{hostile}`"
