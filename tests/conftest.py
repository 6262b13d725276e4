"""Shared fixtures: a database per test, on SQLite or on PostgreSQL.

`database_url` is what most tests use: a fresh SQLite file, or, when
`TEST_DATABASE_URL` names a PostgreSQL database (see `.ci/postgres.sh`), a fresh
schema in it, dropped afterwards. So the same tests run on either database:

    pytest tests/store                                   # SQLite
    .ci/postgres.sh .venv/bin/pytest tests/store         # PostgreSQL

Tests that need PostgreSQL itself use `postgres_url`: without `TEST_DATABASE_URL`
they are skipped, saying PostgreSQL is unavailable, except under `CI=true`, where
they fail: CI must exercise PostgreSQL, not skip it quietly.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

# The helpers' fixtures (demo agents, CSRF token, accounts), for every suite.
pytest_plugins = ["tests.support.fixtures"]

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL", "")
IN_CI = os.environ.get("CI", "").lower() == "true"


@pytest.fixture(scope="session", autouse=True)
def _default_database_in_a_temporary_folder(tmp_path_factory) -> Iterator[None]:
    """The default database (`db.default_url`: the user's data folder, or a checkout's
    instance folder) in a temporary folder: no test writes in the user's home or the
    checkout, even one that forgets to name its database."""
    from webapp.schema import db

    data = tmp_path_factory.mktemp("data-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(data))
        patch.setattr(db, "CHECKOUT_DB", data / "no-checkout" / db.DEFAULT_DB_FILENAME)
        yield


def _require_postgres() -> str:
    if TEST_DATABASE_URL:
        return TEST_DATABASE_URL
    message = ("PostgreSQL is unavailable: TEST_DATABASE_URL is not set "
               "(run the tests under .ci/postgres.sh to start a server)")
    if IN_CI:
        pytest.fail(f"{message}; CI=true requires PostgreSQL", pytrace=False)
    pytest.skip(message)


@pytest.fixture
def sqlite_database_url(tmp_path) -> str:
    """The URL of a new, empty SQLite file in the test's temporary directory."""
    return f"sqlite:///{tmp_path / 'skill-editor.sqlite'}"


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """The URL of a new, empty schema on the PostgreSQL server of `TEST_DATABASE_URL`.

    Skipped without a server (failed under CI=true). The schema is dropped at the end,
    after ending any connection the test left open.
    """
    from webapp.schema.db import normalize_url

    base = normalize_url(_require_postgres())
    if base.get_backend_name() != "postgresql":
        pytest.fail(f"TEST_DATABASE_URL must be a PostgreSQL URL, not {base.drivername}")
    schema = f"test_{uuid.uuid4().hex[:12]}"
    # search_path puts every table (and alembic_version) in the schema; the
    # application_name finds the test's connections again for the cleanup.
    url = base.update_query_dict({"options": f"-csearch_path={schema}",
                                  "application_name": schema})
    from sqlalchemy import create_engine

    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        yield url.render_as_string(hide_password=False)
        with admin.connect() as connection:
            connection.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                    "WHERE application_name = :name AND pid <> pg_backend_pid()"),
                               {"name": schema})
            connection.execute(text("SET lock_timeout = '20s'"))
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    finally:
        admin.dispose()


@pytest.fixture
def database_url(request) -> str:
    """An empty database for one test: PostgreSQL if `TEST_DATABASE_URL` is set, else SQLite."""
    if TEST_DATABASE_URL:
        return request.getfixturevalue("postgres_url")
    return request.getfixturevalue("sqlite_database_url")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def any_database_url(request) -> str:
    """Each test twice: on an empty SQLite file and on an empty PostgreSQL schema."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_database_url")
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def engine(database_url) -> Iterator[Engine]:
    """An engine on `database_url`, migrated to the newest schema (no demo data)."""
    from webapp.schema import db

    engine = db.make_engine(database_url)
    db.upgrade(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def session_factory(engine) -> sessionmaker[Session]:
    """Makes sessions like the app's (for tests that need several, e.g. one per thread)."""
    from webapp.schema import db

    return db.make_sessionmaker(engine)


@pytest.fixture
def session(session_factory) -> Iterator[Session]:
    """A session on the migrated, empty test database."""
    with session_factory() as session:
        yield session


@pytest.fixture
def in_app(app):
    """Run `fn(session)` in the app's database and return what it returns."""

    from webapp.schema.db import get_session

    def run(fn):
        with app.app_context():
            return fn(get_session())

    return run


@pytest.fixture
def app(database_url) -> Iterator[Any]:
    """The Flask app on the test database, migrated, without the demo workspace."""
    from webapp.app import create_app

    app = create_app({"TESTING": True, "SECRET_KEY": "test", "DATABASE_URL": database_url,
                      "SEED_DEMO": False})
    yield app
    from webapp.schema.db import get_database

    get_database(app).engine.dispose()


@pytest.fixture
def client(app) -> Any:
    """A test client of `app`."""
    return app.test_client()


@pytest.fixture
def sent_to_workers(monkeypatch) -> dict[str, list[Any]]:
    """Every item handed to the worker processes (`webapp.bounds.deadlines.run`), by kind of work:
    what a test counts to see which blocks were rendered, highlighted or diffed."""
    from webapp.bounds import deadlines

    sent: dict[str, list[Any]] = {kind: [] for kind in deadlines.DEADLINES}
    real_run = deadlines.run

    def run(kind, fn, items):
        sent[kind].extend(items)
        return real_run(kind, fn, items)

    monkeypatch.setattr(deadlines, "run", run)
    return sent
