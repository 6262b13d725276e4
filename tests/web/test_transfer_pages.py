"""Import and export: bundles and Agent Skills folders in and out (a SKILL.md, a zip of one
skill, a repository previewed then imported), and every way an import fails."""

from __future__ import annotations

import copy
import io
import json
import re
import zipfile
from datetime import UTC, datetime

import pytest

from tests.support.folders import PDF_SKILL_MD, repository, skill_files, unzipped, zipped
from tests.support.pages import HTMX, executable_markup, fragment_root, is_page
from tests.support.workspaces import SIMON
from tests.support.xss import xss_bundle
from webapp import store
from webapp.pipeline import Skill, dump_bundle
from webapp.schema import db

BUNDLE = json.loads(SIMON.read_text(encoding="utf-8"))


def upload(data: bytes | str, filename: str) -> tuple[io.BytesIO, str]:
    return io.BytesIO(data.encode() if isinstance(data, str) else data), filename


def agents(app) -> list[str]:
    with app.app_context():
        return [row.name for row in store.list_agents(db.get_session())]


def workspace(app, agent: str) -> dict:
    """The agent's bundle with the name left out, to compare two agents' contents."""
    with app.app_context():
        bundle = dump_bundle(store.load_workspace(db.get_session(), agent))
    bundle["agent"].pop("name")
    return bundle


def skill_of(app, agent: str, d_tag: str) -> Skill:
    with app.app_context():
        row = store.get_skill(db.get_session(), agent, d_tag)
        return Skill(d_tag=row.d_tag, content=row.content, name=row.name, layer=row.layer,
                     triggers=tuple(row.triggers), enabled=row.enabled)


@pytest.fixture
def post_bundle(client, csrf):
    """POST the bundle form: `post_bundle(text=..., file=..., **fields)`."""

    def post(text: str = "", file: tuple | None = None, headers: dict | None = None, **fields):
        data = {"csrf_token": csrf, "bundle_text": text, **fields}
        if file is not None:
            data["bundle_file"] = file
        return client.post("/transfer/bundle", data=data, headers=headers or {},
                           content_type="multipart/form-data")

    return post


@pytest.fixture
def post_skill(client, csrf):
    """POST the SKILL.md form: `post_skill(agent, (bytes, filename))`."""

    def post(agent: str, file: tuple | None, headers: dict | None = None):
        data = {"csrf_token": csrf, "agent": agent}
        if file is not None:
            data["skill_file"] = file
        return client.post("/transfer/skill", data=data, headers=headers or {},
                           content_type="multipart/form-data")

    return post


# -- the page


def test_transfer_page_and_fragment(client, simon):
    response = client.get("/transfer?agent=Simon")
    assert response.status_code == 200 and is_page(response)
    html = response.data.decode()
    assert 'href="/agents/Simon/bundle"' in html and "Simon.skill-workspace.json" in html
    assert 'href="/agents/Simon/skills/chat/export"' in html and "chat.zip" in html
    assert '<input name="agent" list="agent-names" value="Simon"' in html
    assert '<option value="Simon"></option>' in html and 'enctype="multipart/form-data"' in html
    assert 'href="/agents/Simon/skills.zip"' in html
    fragment = client.get("/transfer", headers=HTMX)
    assert fragment_root(fragment).startswith(b'<section id="transfer"')


def test_transfer_page_without_agents(client):
    html = client.get("/transfer").data.decode()
    assert "No agents yet." in html and "a new agent's name" in html


def test_every_page_links_to_import_export_and_help(client, simon):
    for url in ("/", "/agents/Simon/skills/chat", "/agents/Simon/log"):
        html = client.get(url).data.decode()
        assert 'href="/transfer' in html and 'href="/help"' in html


# -- bundles


def test_export_bundle_is_an_attachment_of_the_whole_workspace(app, client, simon):
    response = client.get("/agents/Simon/bundle")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == (
        "attachment; filename=Simon.skill-workspace.json")
    with app.app_context():
        assert json.loads(response.data) == store.export_bundle(db.get_session(), "Simon")


def test_export_of_an_agent_with_a_non_ascii_name(app, client):
    bundle = copy.deepcopy(BUNDLE)
    bundle["agent"]["name"] = "Zoë"
    with app.app_context():
        store.import_bundle(db.get_session(), bundle)
    disposition = client.get("/agents/Zoë/bundle").headers["Content-Disposition"]
    assert "filename*=UTF-8''Zo%C3%AB.skill-workspace.json" in disposition


def test_bundle_round_trip_through_export_and_upload(app, client, simon, post_bundle):
    exported = client.get("/agents/Simon/bundle").data
    response = post_bundle(file=upload(exported, "Simon.skill-workspace.json"), agent_name="Copy")
    assert response.status_code == 303
    assert response.headers["Location"] == "/agents/Copy"
    assert workspace(app, "Copy") == workspace(app, "Simon")
    assert "Imported Copy: 3 skills, " in client.get("/").data.decode()


def test_import_pasted_json(app, client, post_bundle):
    response = post_bundle(text=json.dumps(BUNDLE))
    assert response.status_code == 303 and response.headers["Location"] == "/agents/Simon"
    assert agents(app) == ["Simon"]


def test_import_without_skills_opens_the_agents_empty_page(app, client, post_bundle):
    empty = {"format": "skill-workspace/1", "agent": {"name": "Empty"}}
    response = post_bundle(text=json.dumps(empty))
    assert response.status_code == 303 and response.headers["Location"] == "/agents/Empty"
    assert agents(app) == ["Empty"]
    page = client.get("/agents/Empty")
    assert page.status_code == 200 and "has no skills yet" in page.data.decode()


def test_the_file_wins_over_pasted_text(app, post_bundle):
    other = {"format": "skill-workspace/1", "agent": {"name": "FromFile"}}
    post_bundle(text=json.dumps(BUNDLE), file=upload(json.dumps(other), "b.json"))
    assert agents(app) == ["FromFile"]


def test_import_with_htmx_navigates(post_bundle):
    response = post_bundle(text=json.dumps(BUNDLE), headers=HTMX)
    assert response.status_code == 204 and response.headers["HX-Redirect"] == "/agents/Simon"


def test_duplicate_agent_without_replace_is_refused(app, simon, post_bundle):
    changed = copy.deepcopy(BUNDLE)
    changed["skills"][2]["content"] = "system:\nreplaced\n"
    response = post_bundle(text=json.dumps(changed))
    assert response.status_code == 422
    html = response.data.decode()
    assert "<code>$.agent.name</code>: an agent named &#39;Simon&#39; already exists" in html
    assert "replaced" in html  # the pasted text is kept in the form
    assert skill_of(app, "Simon", "chat").content != "system:\nreplaced\n"
    response = post_bundle(text=json.dumps(changed), agent_name="Simon")
    assert response.status_code == 422 and b"<code>agent_name</code>" in response.data


def test_replace_overwrites_the_agent(app, client, simon, post_bundle, csrf):
    client.post("/agents/Simon/skills/chat/log", data={"csrf_token": csrf})
    changed = copy.deepcopy(BUNDLE)
    changed["skills"][2]["content"] = "system:\nreplaced\n"
    del changed["skills"][0]  # identity goes to the trash
    response = post_bundle(text=json.dumps(changed), replace="1")
    assert response.status_code == 303
    assert skill_of(app, "Simon", "chat").content == "system:\nreplaced\n"
    with app.app_context():
        session = db.get_session()
        assert [row.d_tag for row in store.list_trash(session, "Simon")] == ["identity"]
        assert len(store.list_log(session, "Simon")) == 1  # the context log stays


def test_invalid_bundle_lists_every_problem_with_its_json_path(app, simon, post_bundle):
    bad = copy.deepcopy(BUNDLE)
    bad["format"] = "skill-workspace/3"
    bad["agent"]["name"] = "Other"
    bad["skills"][0]["d_tag"] = "a b"
    bad["skills"][1]["layer"] = 3
    bad["skills"][2]["triggers"] = ["dm", ""]
    bad["tools"][0]["name"] = "dm_history"
    bad["variables"][0]["colour"] = "red"
    bad["scenarios"][0]["history"] = [{"role": "robot", "content": "x"}]
    response = post_bundle(text=json.dumps(bad))
    assert response.status_code == 422
    html = response.data.decode()
    for path in ("$.format", "$.skills[0].d_tag", "$.skills[1].layer", "$.skills[2].triggers[1]",
                 "$.tools[0].name", "$.variables[0].colour", "$.scenarios[0].history[0].role"):
        assert f"<code>{path}</code>: " in html, path
    assert "Nothing was imported: 7 problems." in html
    assert agents(app) == ["Simon"]


def test_invalid_json_names_line_and_column(app, post_bundle):
    text = '{\n  "format": "skill-workspace/1",\n  "agent": {"name": "X"},,\n}'
    response = post_bundle(text=text)
    assert response.status_code == 422
    reason = b"<code>$</code>: invalid JSON at line 3, column 26: Expecting property name"
    assert reason in response.data
    assert agents(app) == []


@pytest.mark.parametrize("text, file, reason", [
    ("", None, "is empty: choose a bundle file or paste its JSON"),
    ("   \n", None, "is empty"),
    ("[1, 2]", None, "must be a JSON object holding the bundle"),
    ("", upload(b"\xff\xfe{}", "b.json"), "the file is not UTF-8 text (bad byte at offset 0)"),
    ("", upload(b"", "b.json"), "invalid JSON at line 1, column 1"),
])
def test_unreadable_bundles_are_422(app, post_bundle, text, file, reason):
    response = post_bundle(text=text, file=file)
    assert response.status_code == 422 and reason in response.data.decode()
    assert agents(app) == []


@pytest.mark.parametrize("change, path", [
    (lambda b: b["agent"].update(name="a/b"), "$.agent.name"),
    (lambda b: b["skills"][0].update(d_tag="x" * 201), "$.skills[0].d_tag"),
    (lambda b: b["tools"][0].update(name="t" * 201), "$.tools[0].name"),
    (lambda b: b["skills"][0].update(content="nul \x00 here"), "$.skills[0].content"),
])
def test_what_the_database_cannot_store_is_refused_before_writing(app, post_bundle, change, path):
    bad = copy.deepcopy(BUNDLE)
    change(bad)
    response = post_bundle(text=json.dumps(bad))
    assert response.status_code == 422
    assert f"<code>{path}</code>: " in response.data.decode()
    assert agents(app) == []


def test_agent_name_override_is_checked(app, post_bundle):
    response = post_bundle(text=json.dumps(BUNDLE), agent_name="x/y")
    assert response.status_code == 422
    assert b"<code>agent_name</code>: must not contain" in response.data
    assert agents(app) == []


def test_failed_import_with_htmx_answers_the_fragment(post_bundle):
    response = post_bundle(text="{", headers=HTMX)
    assert response.status_code == 422
    assert fragment_root(response).startswith(b'<section id="transfer"')


def test_import_needs_the_csrf_token(app, client):
    response = client.post("/transfer/bundle", data={"bundle_text": json.dumps(BUNDLE)},
                           content_type="multipart/form-data")
    assert response.status_code == 400
    assert agents(app) == []


def test_oversize_upload_is_413(app, post_bundle):
    # An import has its own, larger limit (IMPORT_MAX_CONTENT_LENGTH).
    app.config["IMPORT_MAX_CONTENT_LENGTH"] = 2000
    response = post_bundle(file=upload(b" " * 5000 + json.dumps(BUNDLE).encode(), "big.json"))
    assert response.status_code == 413
    assert b"larger than this server accepts" in response.data
    assert agents(app) == []


def test_export_of_unknown_agent_is_404(client, simon):
    assert client.get("/agents/Nobody/bundle").status_code == 404


# -- SKILL.md folders


def test_export_skill_as_a_zipped_skill_md_folder(client, simon):
    response = client.get("/agents/Simon/skills/chat/export")
    assert response.status_code == 200 and response.mimetype == "application/zip"
    assert response.headers["Content-Disposition"] == "attachment; filename=chat.zip"
    with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
        assert archive.namelist() == ["chat/SKILL.md"]
        text = archive.read("chat/SKILL.md").decode()
    assert text.startswith("---\nname: chat\ndescription: Answers the admin's direct messages, "
                           "using tools when a request needs action.\nmetadata:\n  d_tag: chat\n")
    assert text.endswith("\n---\n\n" + BUNDLE["skills"][2]["content"])


def test_exported_entries_are_dated_when_the_skill_s_version_was_saved(app, client, simon):
    """Not 1980-01-01: the version's time (UTC), so the same version zips to the same bytes."""
    with app.app_context():
        session = db.get_session()
        row = store.get_skill(session, "Simon", "chat")
        row.updated_at = datetime(2026, 3, 4, 5, 6, 8, tzinfo=UTC)
        session.commit()
    for url in ("/agents/Simon/skills/chat/export", "/agents/Simon/skills.zip"):
        data = client.get(url).data
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            assert archive.getinfo("chat/SKILL.md").date_time == (2026, 3, 4, 5, 6, 8)
        assert client.get(url).data == data


def test_export_names_the_folder_after_the_d_tag(app, client, simon):
    with app.app_context():
        store.create_skill(db.get_session(), "Simon", "Team_Notes/v2", content="x\n")
    response = client.get("/agents/Simon/skills/Team_Notes/v2/export")
    assert response.headers["Content-Disposition"] == "attachment; filename=team-notes-v2.zip"
    with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
        assert archive.namelist() == ["team-notes-v2/SKILL.md"]


def test_skill_md_round_trip_through_export_and_upload(app, client, simon, post_skill):
    """Each skill exported and imported into another agent, one zip at a time."""
    with app.app_context():
        store.create_agent(db.get_session(), "Other")
    for d_tag in ("identity", "personality", "chat"):
        data = client.get(f"/agents/Simon/skills/{d_tag}/export").data
        response = post_skill("Other", upload(data, f"{d_tag}.zip"))
        assert response.status_code == 303
        assert response.headers["Location"] == f"/agents/Other/skills/{d_tag}"
        assert skill_of(app, "Other", d_tag) == skill_of(app, "Simon", d_tag)
    with app.app_context():
        revision = store.list_revisions(db.get_session(), "Other", "chat")[0]
    assert revision.note == "imported from SKILL.md"


def test_import_a_plain_skill_md_file(app, client, simon, post_skill):
    text = "---\nname: pdf-processing\ndescription: Read PDFs.\n---\n\n# PDFs\n\nSteps.\n"
    response = post_skill("Simon", upload(text, "SKILL.md"))
    assert response.status_code == 303
    assert skill_of(app, "Simon", "pdf-processing") == Skill(
        d_tag="pdf-processing", content="# PDFs\n\nSteps.\n", name="pdf-processing")
    html = client.get("/agents/Simon/skills/pdf-processing").data.decode()
    assert "Imported pdf-processing into Simon (new)." in html


def test_import_skill_with_htmx_navigates(post_skill, simon):
    text = "---\nname: extra\ndescription: More.\n---\nbody\n"
    response = post_skill("Simon", upload(text, "SKILL.md"), headers=HTMX)
    assert response.status_code == 204
    assert response.headers["HX-Redirect"] == "/agents/Simon/skills/extra"


def test_a_newer_skill_md_of_an_existing_d_tag_is_a_new_version(app, client, simon,
                                                                  post_skill):
    data = client.get("/agents/Simon/skills/chat/export").data
    assert post_skill("Simon", upload(data, "chat.zip")).status_code == 303
    with app.app_context():
        assert store.get_skill(db.get_session(), "Simon", "chat").version == 1  # unchanged
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        text = archive.read("chat/SKILL.md").decode() + "One more line.\n"
    response = post_skill("Simon", upload(text, "SKILL.md"))
    assert response.status_code == 303
    with app.app_context():
        row = store.get_skill(db.get_session(), "Simon", "chat")
    assert row.version == 2 and row.content.endswith("One more line.\n")
    html = client.get(response.headers["Location"]).data.decode()
    assert "Imported chat into Simon (updated)." in html


def test_skill_md_problems_are_listed_and_nothing_is_created(app, simon, post_skill):
    text = ("---\nname: [x]\ndescription: 5\nmetadata:\n  d_tag: a b\n  layer: '7'\n"
            "  enabled: maybe\n---\nbody\n")
    response = post_skill("Simon", upload(text, "SKILL.md"))
    assert response.status_code == 422
    html = response.data.decode()
    for field in ("name", "description", "metadata.layer", "metadata.enabled", "metadata.d_tag"):
        assert f"<code>SKILL.md: {field}</code>: " in html, field
    with app.app_context():
        assert len(store.list_skills(db.get_session(), "Simon")) == 3


def test_skill_md_yaml_error_names_line_and_column(simon, post_skill):
    response = post_skill("Simon", upload("---\nname: x\ndescription: [oops\n---\n", "SKILL.md"))
    assert response.status_code == 422
    assert b"<code>SKILL.md: frontmatter</code>: invalid YAML at line 4, column 1" in response.data


@pytest.mark.parametrize("agent, file, field, reason", [
    ("Simon", None, "file", "choose a SKILL.md file, or a zip of skill folders"),
    ("", upload("x", "SKILL.md"), "agent", "is required"),
    ("Simon/x", upload("---\nname: x\n---\n", "SKILL.md"), "agent",
     "must not contain &#39;/&#39;"),
    ("Simon", upload(b"PK\x03\x04broken", "x.zip"), "upload", "is not a readable zip archive"),
    ("Simon", upload(b"\xff", "SKILL.md"), "SKILL.md", "is not UTF-8 text"),
])
def test_skill_upload_problems(app, simon, post_skill, agent, file, field, reason):
    response = post_skill(agent, file)
    assert response.status_code == 422
    assert f"<code>{field}</code>: {reason}" in response.data.decode()


def test_skill_md_with_too_long_d_tag(simon, post_skill):
    text = f"---\nname: x\ndescription: d\nmetadata:\n  d_tag: {'y' * 201}\n---\n"
    response = post_skill("Simon", upload(text, "SKILL.md"))
    assert response.status_code == 422
    assert b"<code>SKILL.md: metadata.d_tag</code>: must be at most 200 characters" in (
        response.data)


def test_an_import_into_a_new_agent_creates_it(app, client, simon, post_skill):
    text = "---\nname: extra\ndescription: More.\n---\nbody\n"
    response = post_skill("Fresh", upload(text, "SKILL.md"))
    assert response.status_code == 303
    html = client.get(response.headers["Location"]).data.decode()
    assert "Imported extra into the new agent Fresh (new)." in html


def test_failed_skill_import_with_htmx_answers_the_fragment(simon, post_skill):
    response = post_skill("Simon", None, headers=HTMX)
    assert response.status_code == 422
    assert fragment_root(response).startswith(b'<section id="transfer"')


def test_skill_import_needs_the_csrf_token(client, simon):
    response = client.post("/transfer/skill", data={"agent": "Simon",
                                                   "skill_file": upload("x", "SKILL.md")})
    assert response.status_code == 400


def test_export_of_a_missing_or_trashed_skill_is_404(app, client, simon):
    assert client.get("/agents/Simon/skills/nope/export").status_code == 404
    with app.app_context():
        store.delete_skill(db.get_session(), "Simon", "chat")
    assert client.get("/agents/Simon/skills/chat/export").status_code == 404


# -- many skills, with a preview


@pytest.fixture
def preview_skills(client, csrf):
    """POST the preview: `preview_skills(agent, (bytes, filename), headers=...)`."""

    def post(agent: str, file: tuple | None, headers: dict | None = None):
        data = {"csrf_token": csrf, "agent": agent}
        if file is not None:
            data["skill_file"] = file
        return client.post("/transfer/skills/preview", data=data, headers=headers or {},
                           content_type="multipart/form-data")

    return post


def _repository_with_chat(client) -> dict[str, object]:
    """The test repository, with Simon's `chat` exported into it and changed."""
    entries = repository()
    with zipfile.ZipFile(io.BytesIO(client.get("/agents/Simon/skills/chat/export").data)) as z:
        text = z.read("chat/SKILL.md").decode().replace("using tools", "with tools")
    entries["skills-main/skills/chat/SKILL.md"] = text.encode()
    entries["skills-main/skills/chat/notes.md"] = b"# Notes\n"
    return entries


def test_a_repository_is_previewed_then_imported_as_previewed(app, client, simon,
                                                              preview_skills, post_skill, csrf):
    data = zipped(_repository_with_chat(client))
    response = preview_skills("Simon", upload(data, "skills-main.zip"), headers=HTMX)
    assert response.status_code == 200
    html = response.data.decode()
    assert "Preview: 4 skills for" in html and "Import 4 skills" in html
    for d_tag, status in (("pdf", "new"), ("mcp-builder", "new"), ("chat", "updated")):
        assert re.search(rf"<td>{d_tag}</td>.*?>{status}</span>", html, re.S), d_tag
    assert '<span class="word-changed">with</span>' in html  # the diff of chat's SKILL.md
    assert '<span class="badge passed">added</span> <code>notes.md</code>' in html
    # The 1,068-character description imports, with the problem its clients have.
    assert "doc-coauthoring: 1 problem for its clients (it imports all the same)" in html
    assert "the description is 1,068 characters (SKILL.md line 3): Agent Skills " in html
    token = re.search(r'name="token" value="(\w+)"', html)[1]
    with app.app_context():
        assert len(store.list_skills(db.get_session(), "Simon")) == 3  # nothing written yet
    response = client.post("/transfer/skill", data={
        "csrf_token": csrf, "agent": "Simon", "token": token,
        "skill_file": upload(data, "skills-main.zip")}, content_type="multipart/form-data")
    assert response.status_code == 303 and response.headers["Location"] == "/agents/Simon"
    assert "Imported 4 skills into Simon (new: 3, updated: 1, unchanged: 0)." in (
        client.get("/agents/Simon", follow_redirects=True).data.decode())
    with app.app_context():
        assert store.get_file(db.get_session(), "Simon", "chat", "notes.md").data == b"# Notes\n"


def test_an_import_after_a_change_since_the_preview_is_refused(app, client, simon,
                                                               preview_skills, csrf):
    data = zipped(_repository_with_chat(client))
    html = preview_skills("Simon", upload(data, "skills-main.zip")).data.decode()
    token = re.search(r'name="token" value="(\w+)"', html)[1]
    with app.app_context():
        store.save_skill(db.get_session(), "Simon", "chat", expected_version=1, content="x\n")
    response = client.post("/transfer/skill", data={
        "csrf_token": csrf, "agent": "Simon", "token": token,
        "skill_file": upload(data, "skills-main.zip")}, content_type="multipart/form-data")
    assert response.status_code == 409
    assert "changed since the preview: nothing was imported" in response.data.decode()
    with app.app_context():
        assert len(store.list_skills(db.get_session(), "Simon")) == 3


def test_a_preview_page_without_scripts_asks_for_the_file_again(simon, preview_skills):
    html = preview_skills("Simon", upload(PDF_SKILL_MD, "SKILL.md")).data.decode()
    assert "Choose the same file again above" in html and "Import 1 skill<" in html


def test_a_preview_of_what_the_agent_has_offers_nothing_to_import(client, simon,
                                                                 preview_skills):
    data = client.get("/agents/Simon/skills/chat/export").data
    html = preview_skills("Simon", upload(data, "chat.zip"), headers=HTMX).data.decode()
    assert "there is nothing to import" in html and 'name="token"' not in html


def test_a_refused_preview_lists_its_problems_in_place(simon, preview_skills):
    response = preview_skills("Simon", upload(zipped({"../x/SKILL.md": b"x"}), "x.zip"),
                              headers=HTMX)
    assert response.status_code == 200
    html = response.data.decode()
    assert "The import would be refused: 1 problem." in html
    assert "<code>../x/SKILL.md</code>: holds a &#39;..&#39; part" in html


def test_the_agent_exports_as_a_skills_folder(app, client, simon, post_skill):
    post_skill("Simon", upload(zipped(repository()), "skills-main.zip"))
    response = client.get("/agents/Simon/skills.zip")
    assert response.status_code == 200 and response.mimetype == "application/zip"
    assert response.headers["Content-Disposition"] == "attachment; filename=Simon-skills.zip"
    files = unzipped(response.data)
    assert {name.split("/")[0] for name in files} == {
        "identity", "personality", "chat", "pdf", "mcp-builder", "doc-coauthoring"}
    assert {path.removeprefix("pdf/"): data for path, data in files.items()
            if path.startswith("pdf/")} == skill_files(repository(), "pdf")


# -- untrusted text


def test_hostile_workspace_exports_and_transfer_page_are_safe(app, client, post_bundle):
    response = post_bundle(text=json.dumps(xss_bundle()))
    assert response.status_code == 303
    html = client.get("/transfer?agent=Mallory").data.decode()
    assert executable_markup(html) == []
    assert client.get("/agents/Mallory/skills/evil/export").status_code == 200


def test_problems_do_not_reflect_markup(app, post_bundle):
    bad = {"format": "<script>alert(1)</script>",
           "agent": {"name": "x", "<img src=x onerror=1>": 1}}
    response = post_bundle(text=json.dumps(bad))
    assert response.status_code == 422
    html = response.data.decode()
    assert executable_markup(html) == [] and "&lt;script&gt;" in html
