"""A skill's frontmatter editor: every key of its SKILL.md as YAML, page and fragment, with
the lint beside it; a save is a new version whose untouched keys keep their bytes, and
every refusal (YAML that does not read, a d_tag change, a stale page) keeps the text."""

from __future__ import annotations

import pytest

from tests.support.pages import HTMX, fragment_root, is_page
from webapp import agentskills, store
from webapp.schema import db

PAGE = "/agents/Docs/skills/release/frontmatter"
SKILL_MD = (b"---\r\nname: release   # the name\nlicense: 'MIT'\r\ndescription: Ships releases\n"
            b"metadata:\n  owner: 'release crew'\r\n  d_tag: release\n"
            b"x-team: \"ops\"\n---\n\nShip it.\r\n")


@pytest.fixture
def docs(app) -> str:
    """The agent Docs, holding one skill `release` read from a SKILL.md with mixed line ends,
    quoted keys and comments."""
    with app.app_context():
        store.import_skills(db.get_session(), "Docs",
                            agentskills.read_upload("SKILL.md", SKILL_MD))
    return "Docs"


def exported(app) -> bytes:
    with app.app_context():
        folder = store.folder_of(db.get_session(),
                                 store.get_skill(db.get_session(), "Docs", "release"))
        return dict((p, d) for p, d, _ in agentskills.folder_files(folder))["SKILL.md"]


def test_the_frontmatter_is_shown_as_page_and_fragment_with_its_lint(client, docs):
    response = client.get(PAGE)
    assert response.status_code == 200 and is_page(response)
    html = response.data.decode()
    assert "owner: &#39;release crew&#39;" in html and "x-team: &#34;ops&#34;" in html
    assert 'aria-label="Frontmatter of release"' in html
    assert "key-unknown" in html  # `x-team` is outside the specification's keys
    assert fragment_root(client.get(PAGE, headers=HTMX)).startswith(
        b'<section id="skill-frontmatter"')
    assert f'href="{PAGE}"' in client.get("/agents/Docs/skills/release").data.decode()


def test_a_save_keeps_untouched_keys_byte_for_byte(app, client, docs, csrf):
    text = client.get(PAGE).data.decode()
    assert "layer" not in text.split("<textarea", 1)[1].split("</textarea>", 1)[0]
    yaml = ("name: release   # the name\r\nlicense: 'MIT'\r\ndescription: Ships releases\r\n"
            "metadata:\r\n  owner: 'release crew'\r\n  d_tag: release\r\n  layer: '2'\r\n"
            "x-team: \"ops\"\r\n")
    response = client.post(PAGE, data={"csrf_token": csrf, "version": "1", "frontmatter": yaml})
    assert response.status_code == 303
    assert response.headers["Location"].endswith("/agents/Docs/skills/release")
    with app.app_context():
        row = store.get_skill(db.get_session(), "Docs", "release")
        assert row.version == 2 and row.layer == 2
    # Each untouched line keeps its end; the line added takes the end of the one before.
    assert exported(app) == SKILL_MD.replace(b"  d_tag: release\n",
                                             b"  d_tag: release\n  layer: '2'\n")


def test_htmx_save_goes_back_to_the_editor(client, docs, csrf):
    response = client.post(PAGE, headers=HTMX, data={
        "csrf_token": csrf, "version": "1",
        "frontmatter": "name: release\ndescription: Cuts releases\n"})
    assert response.status_code == 204
    assert response.headers["HX-Redirect"].endswith("/agents/Docs/skills/release")


@pytest.mark.parametrize(("yaml", "where"), [
    pytest.param("name: [release\n", "frontmatter", id="invalid-yaml"),
    pytest.param("name: release\ndescription: d\nmetadata:\n  d_tag: other\n", "metadata.d_tag",
                 id="d-tag-changed"),
    pytest.param("name: release\n---\nx: 1\n", "frontmatter", id="fence-inside"),
    pytest.param("a: &x [1]\nb: *x\n", "frontmatter", id="alias"),
    pytest.param("metadata:\n  layer: '7'\n", "metadata.layer", id="bad-layer"),
])
def test_refused_yaml_is_a_422_keeping_the_text(app, client, docs, csrf, yaml, where):
    response = client.post(PAGE, headers=HTMX, data={"csrf_token": csrf, "version": "1",
                                                     "frontmatter": yaml})
    assert response.status_code == 422
    html = response.data.decode()
    assert f"<code>{where}</code>" in html and 'aria-invalid="true"' in html
    with app.app_context():
        assert store.get_skill(db.get_session(), "Docs", "release").version == 1
    assert exported(app) == SKILL_MD


def test_a_stale_page_is_a_409_keeping_the_text(client, docs, csrf):
    client.post(PAGE, data={"csrf_token": csrf, "version": "1",
                            "frontmatter": "name: release\ndescription: One\n"})
    response = client.post(PAGE, data={"csrf_token": csrf, "version": "1",
                                       "frontmatter": "name: release\ndescription: Two\n"})
    assert response.status_code == 409
    assert "saved meanwhile" in response.data.decode() and "description: Two" in (
        response.data.decode())


def test_a_save_needs_the_csrf_token(client, docs):
    response = client.post(PAGE, data={"version": "1", "frontmatter": "name: release\n"})
    assert response.status_code in (400, 403)


@pytest.mark.parametrize("yaml", [
    pytest.param("description: '" + "x" * (1024 * 1024) + "'\n", id="past-the-file-limit"),
    pytest.param("metadata: " + "[" * 200 + "]" * 200 + "\n", id="nested-too-deep"),
    pytest.param("name: release\nbad: \x00\n", id="nul"),
    pytest.param("- a\n- b\n", id="not-a-mapping"),
])
def test_hostile_yaml_is_a_422_not_a_5xx(app, client, docs, csrf, yaml):
    response = client.post(PAGE, data={"csrf_token": csrf, "version": "1", "frontmatter": yaml})
    assert response.status_code in (413, 422)
    assert exported(app) == SKILL_MD


def test_the_editor_opens_it_in_a_dialog(client, docs):
    editor = client.get("/agents/Docs/skills/release").data.decode()
    assert '<dialog id="frontmatter-dialog"' in editor
    assert f'hx-get="{PAGE}?dialog=1" hx-target="#frontmatter-dialog"' in editor
    fragment = client.get(PAGE, query_string={"dialog": "1"}, headers=HTMX).data.decode()
    assert '<form method="dialog"><button type="submit">Close</button></form>' in fragment
    assert "Back to the editor" not in fragment
