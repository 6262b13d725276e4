"""`skill-editor assemble/check --agent` read the database; `serve` upgrades, seeds and serves."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from webapp import store
from webapp.cli import main
from webapp.pipeline import dump_bundle, load_bundle
from webapp.schema import db

ROOT = Path(__file__).resolve().parents[2]
SIMON_DOCUMENT = (ROOT / "tests" / "pipeline" / "fixtures" / "simon_document.md").read_text(
    encoding="utf-8")


@pytest.fixture
def simon_db(database_url) -> str:
    """A database holding the Simon agent, imported from the demo bundle."""
    with db.session_scope(database_url) as session:
        simon = load_bundle(ROOT / "webapp" / "demo" / "simon.json")
        store.import_bundle(session, dump_bundle(simon))
    return database_url


def test_assemble_from_the_database_prints_the_seed_document(simon_db):
    result = CliRunner().invoke(main, ["assemble", "--agent", "Simon", "--scenario",
                                       "admin asks about mentions", "--database-url", simon_db])
    assert result.exit_code == 0, result.output
    assert result.stdout == SIMON_DOCUMENT


def test_assemble_unknown_agent_exits_1_with_a_message(simon_db):
    result = CliRunner().invoke(main, ["assemble", "--agent", "Nobody", "--database-url", simon_db])
    assert result.exit_code == 1
    assert "Nobody" in result.stderr


def test_check_from_the_database(simon_db):
    result = CliRunner().invoke(main, ["check", "--agent", "Simon", "--database-url", simon_db])
    assert result.exit_code == 0, result.output
    assert "scenario 'admin asks about mentions', trigger 'dm': 0 errors" in result.stdout


def test_serve_upgrades_seeds_and_runs_on_the_given_address(monkeypatch, database_url):
    """`serve` builds the app (database migrated, demo seeded) and hands it to werkzeug."""
    import werkzeug.serving

    served = {}
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setattr(werkzeug.serving, "run_simple",
                        lambda host, port, app, **kw: served.update(host=host, port=port, app=app))
    result = CliRunner().invoke(main, ["serve", "--host", "127.0.0.1", "--port", "5123"])
    assert result.exit_code == 0, result.output
    assert (served["host"], served["port"]) == ("127.0.0.1", 5123)
    response = served["app"].test_client().get("/")
    assert response.status_code == 200 and "Simon" in response.get_data(as_text=True)
