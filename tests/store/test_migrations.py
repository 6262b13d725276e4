"""Alembic migrations and `webapp.schema.db`: schema, upgrade on start, SQLite settings."""

from __future__ import annotations

import threading

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from flask import Flask
from sqlalchemy import inspect, text

from webapp import store
from webapp.demo import seed_demo
from webapp.schema import db, models
from webapp.schema.models import Base


def _schema_differences(engine) -> list:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, Base.metadata)


def test_upgrade_head_gives_exactly_the_models_schema_and_downgrade_empties_it(any_database_url):
    engine = db.make_engine(any_database_url)
    try:
        db.upgrade(engine)
        head = ScriptDirectory.from_config(db.alembic_config()).get_current_head()
        assert db.current_revision(engine) == head
        assert _schema_differences(engine) == []
        assert set(inspect(engine).get_table_names()) == set(Base.metadata.tables) | {
            "alembic_version"}

        db.downgrade(engine)
        assert db.current_revision(engine) is None
        assert inspect(engine).get_table_names() == ["alembic_version"]

        db.upgrade(engine)  # and up again, from base
        assert _schema_differences(engine) == []
    finally:
        engine.dispose()


def test_constraint_names_follow_the_naming_convention(any_database_url):
    engine = db.make_engine(any_database_url)
    try:
        db.upgrade(engine)
        inspector = inspect(engine)
        assert {u["name"] for u in inspector.get_unique_constraints("skills")} == {
            "uq_skills_agent_id_d_tag"}
        assert {f["name"] for f in inspector.get_foreign_keys("skill_revisions")} == {
            "fk_skill_revisions_skill_id_skills"}
    finally:
        engine.dispose()


def test_upgrade_is_idempotent_and_safe_to_run_from_two_threads(database_url):
    errors = []

    def run():
        try:
            db.upgrade(database_url)
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    db.upgrade(database_url)
    assert not errors, errors
    assert db.current_revision(database_url) is not None


def test_sqlite_connections_use_wal_foreign_keys_and_a_busy_timeout(sqlite_database_url):
    engine = db.make_engine(sqlite_database_url)
    try:
        with engine.connect() as connection:
            def pragma(name):
                return connection.execute(text(f"PRAGMA {name}")).scalar()

            assert pragma("journal_mode") == "wal"
            assert pragma("foreign_keys") == 1
            assert pragma("busy_timeout") == db.SQLITE_BUSY_TIMEOUT_MS
    finally:
        engine.dispose()


def test_deleting_an_agent_row_cascades_in_the_database(session):
    store.create_agent(session, "gone")
    store.create_skill(session, "gone", "a", content="x")
    store.save_skill(session, "gone", "a", expected_version=1, content="y")
    # A raw delete: only the database's ON DELETE CASCADE (foreign keys on) cleans up.
    session.execute(text("DELETE FROM agents WHERE name = 'gone'"))
    session.commit()
    assert session.execute(text("SELECT count(*) FROM skill_revisions")).scalar() == 0
    assert session.execute(text("SELECT count(*) FROM skills")).scalar() == 0


def test_urls(tmp_path, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    default = f"sqlite:///{tmp_path / 'data' / 'skill-editor' / 'skill-editor.sqlite'}"
    assert db.resolve_url() == default
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert db.resolve_url() == default  # whatever the current folder
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@h/d")
    assert db.resolve_url() == "postgresql://u@h/d"
    assert db.resolve_url("sqlite:///x.db") == "sqlite:///x.db"
    assert db.normalize_url("postgresql://u@h/d").drivername == "postgresql+psycopg"
    assert db.normalize_url("postgres://u@h/d").drivername == "postgresql+psycopg"


def test_the_default_database_is_in_the_user_s_data_folder(tmp_path, monkeypatch):
    """$XDG_DATA_HOME/skill-editor, else ~/.local/share/skill-editor (a relative
    $XDG_DATA_HOME is ignored); a checkout's instance/skill-editor.sqlite, where the
    database was kept before, is used while the data folder has none."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_DATA_HOME")
    home = tmp_path / "home" / ".local" / "share" / "skill-editor"
    assert db.data_dir() == home
    monkeypatch.setenv("XDG_DATA_HOME", "relative/data")
    assert db.data_dir() == home
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert db.data_dir() == tmp_path / "data" / "skill-editor"
    data = tmp_path / "data" / "skill-editor"
    assert db.default_url() == db.sqlite_url(data / "skill-editor.sqlite")
    checkout = tmp_path / "checkout" / "instance" / "skill-editor.sqlite"
    monkeypatch.setattr(db, "CHECKOUT_DB", checkout)
    checkout.parent.mkdir(parents=True)
    checkout.touch()
    assert db.default_url() == db.sqlite_url(checkout)
    (tmp_path / "data" / "skill-editor").mkdir(parents=True)
    (tmp_path / "data" / "skill-editor" / "skill-editor.sqlite").touch()
    data = tmp_path / "data" / "skill-editor"
    assert db.default_url() == db.sqlite_url(data / "skill-editor.sqlite")


def _flask_app(tmp_path, **config) -> Flask:
    app = Flask("skill_editor_test", instance_path=str(tmp_path / "instance"))
    app.config.update(config)
    db.init_app(app, seed=None if config.get("SEED_DEMO") is False else seed_demo)
    return app


def test_init_app_upgrades_seeds_the_demo_once_and_gives_a_session_per_request(tmp_path,
                                                                              monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    app = _flask_app(tmp_path)
    assert app.config["DATABASE_URL"] == (
        f"sqlite:///{tmp_path / 'data' / 'skill-editor' / 'skill-editor.sqlite'}")
    with app.app_context():
        session = db.get_session()
        assert db.get_session() is session
        names = [agent.name for agent in store.list_agents(session)]
    assert "Relay Watch" in names
    with app.app_context():
        assert db.get_session() is not session, "a new session for each context"
    db.get_database(app).engine.dispose()

    # A second start finds agents and seeds nothing more.
    again = _flask_app(tmp_path)
    with again.app_context():
        assert [a.name for a in store.list_agents(db.get_session())] == names
    db.get_database(again).engine.dispose()


def test_init_app_without_the_demo(database_url, tmp_path):
    app = _flask_app(tmp_path, DATABASE_URL=database_url, SEED_DEMO=False)
    with app.app_context():
        assert store.list_agents(db.get_session()) == []
    db.get_database(app).engine.dispose()


def test_get_session_outside_an_app_is_a_clear_error():
    with pytest.raises(RuntimeError):
        db.get_session()


def test_session_scope_commits_or_rolls_back(database_url):
    with db.session_scope(database_url) as session:
        store.create_agent(session, "kept")
    with pytest.raises(RuntimeError), db.session_scope(database_url) as session:
        session.add(models.Agent(name="dropped", history_labels={}))
        session.flush()
        raise RuntimeError("fails after a flush")
    with db.session_scope(database_url) as session:
        assert [a.name for a in store.list_agents(session)] == ["kept"]


def test_0016_gives_every_existing_skill_the_name_its_head_exports(any_database_url):
    """Skills written before the column existed get the name their SKILL.md head says (or
    their folder's), as a write computes it."""
    engine = db.make_engine(any_database_url)
    try:
        db.upgrade(engine, "0015")
        with engine.begin() as connection:
            connection.execute(text("INSERT INTO agents (name, title, message_mode, "
                                    "max_array_items, history_labels, created_at) VALUES "
                                    "('A', '{name}', 'grouped', 8, '{}', '2026-12-06')"))
            kept = "---\nname: chosen-name\ndescription: d\nmetadata:\n  d_tag: kept_name\n---\n\n"
            for d_tag, head in (("kept_name", kept), ("no_head", "")):
                connection.execute(text(
                    "INSERT INTO skills (agent_id, position, version, created_at, updated_at, "
                    "d_tag, name, description, layer, triggers, enabled, content, frontmatter)"
                    " VALUES (1, 0, 1, '2026-12-06', '2026-12-06', :d_tag, '', 'd', 1, '[]', "
                    ":yes, 'Text.', :head)"), {"d_tag": d_tag, "head": head, "yes": True})
        db.upgrade(engine)
        with engine.connect() as connection:
            names = dict(connection.execute(text("SELECT d_tag, exported_name FROM skills")).all())
        assert names == {"kept_name": "chosen-name", "no_head": "no-head"}
    finally:
        engine.dispose()
