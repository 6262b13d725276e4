"""Engines, sessions and schema upgrades, with or without a Flask app.

The web app calls `init_app(app)`: it upgrades the database to the newest migration,
seeds the demo workspace into an empty database, and gives each request its own
session (`get_session()`), closed on teardown. The CLI and `migrations/env.py` use
`make_engine(url)`, `session_scope(url)` and `upgrade(url)` directly.

SQLite is the default (a file in the user's data folder, `data_dir()`). Every SQLite connection
gets WAL journaling, foreign keys and a busy timeout, so a save that arrives while a
preview is reading waits its turn instead of failing with "database is locked".
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event, func, select
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import Session, sessionmaker

from webapp.agentskills import DEFAULT_LIMITS, LIMIT_SETTINGS, FolderLimits, limits_from
from webapp.pipeline import JsonNumber, dumps_json, read_json

from . import models

try:
    import fcntl
except ImportError:  # Windows: no lock file; run one worker there
    fcntl = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from flask import Flask

#: The checkout the package sits in: `migrations/` beside `webapp/`.
ROOT = Path(__file__).resolve().parents[2]
#: Fills an empty database and names the agents it made (`demo.seed_demo`).
Seed = Callable[[Session], list[str]]
#: The SQLite file name of the default database (`default_url`).
DEFAULT_DB_FILENAME = "skill-editor.sqlite"
#: Where the app kept the default database before it moved to `data_dir()`: used while
#: it exists and the data folder has no database.
CHECKOUT_DB = ROOT / "instance" / DEFAULT_DB_FILENAME
#: How long an SQLite writer waits for another writer before giving up.
SQLITE_BUSY_TIMEOUT_MS = 5000
#: Where Alembic's env.py and versions/ live.
MIGRATIONS_DIR = ROOT / "migrations"
#: An arbitrary constant: the PostgreSQL advisory lock taken while migrating.
_PG_MIGRATION_LOCK = 0x5E11ED17

_EXTENSION_KEY = "skill_editor.db"
#: The prefix of the environment variables a deployment's settings are read from (as
#: `Flask.config.from_prefixed_env` reads them for the app).
ENV_PREFIX = "SKILL_EDITOR_"

log = logging.getLogger(__name__)


def normalize_url(url: str | URL) -> URL:
    """Parse `url`, choosing psycopg 3 for a bare `postgresql://` (or `postgres://`) URL."""
    if isinstance(url, str) and url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    parsed = make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def sqlite_url(path: str | os.PathLike[str]) -> str:
    """The SQLAlchemy URL of an SQLite file, made absolute."""
    return f"sqlite:///{Path(path).resolve()}"


def data_dir() -> Path:
    """The folder of the default database, the same whatever the current folder:
    `$XDG_DATA_HOME/skill-editor`, else `~/.local/share/skill-editor` (the XDG base
    directories; a relative `$XDG_DATA_HOME` is ignored, as the specification says)."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "skill-editor"


def default_url() -> str:
    """The SQLite file used when no URL is configured: `skill-editor.sqlite` in
    `data_dir()`, or the checkout's `instance/skill-editor.sqlite` when that one exists
    and the data folder has none yet (where the app kept it before, so an existing
    workspace is not left behind)."""
    path = data_dir() / DEFAULT_DB_FILENAME
    if not path.exists() and CHECKOUT_DB.exists():
        path = CHECKOUT_DB
    return sqlite_url(path)


def resolve_url(url: str | None = None) -> str:
    """The database URL to use: `url`, else `$DATABASE_URL`, else `default_url()`."""
    if url:
        return url
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    return default_url()


def _sqlite_file(url: URL) -> Path | None:
    """The file of an SQLite URL, or None for an in-memory database."""
    if url.get_backend_name() != "sqlite":
        return None
    database = url.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    return Path(database)


def _chosen_by(url: URL) -> str:
    """Which setting chose the database `url`, in words, for the message that creates it."""
    if os.environ.get("DATABASE_URL") and normalize_url(os.environ["DATABASE_URL"]) == url:
        return "set by DATABASE_URL"
    if url == normalize_url(default_url()):
        return ("the default, shared by every checkout of this user; "
                "DATABASE_URL or --database-url chooses another")
    return "set by --database-url or the app's DATABASE_URL setting"


def _on_sqlite_connect(dbapi_connection: Any, connection_record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        # WAL lets previews read while a save writes; NORMAL is durable in WAL mode
        # except for the last transactions before a power cut, never corrupting.
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
    finally:
        cursor.close()


# JSON columns keep numbers exactly as written (a 5000-digit integer, `1e999`): see
# `pipeline.JsonNumber`.
_JSON_CODEC = {"json_serializer": dumps_json, "json_deserializer": read_json}


def _sqlite_json(value: Any) -> str | bytes:
    """JSON text for an SQLite JSON column, where a bare number is bound as bytes.

    SQLite gives a column declared `JSON` numeric affinity: text that reads as a number
    is stored as an INTEGER or a REAL, so `1.50` came back as 1.5 and a 20-digit integer
    lost its last digits. A BLOB is stored as it is, and only a bare number is at risk.
    """
    text = dumps_json(value)
    number = isinstance(value, (int, float, JsonNumber)) and not isinstance(value, bool)
    return text.encode("utf-8") if number else text


def _sqlite_read(value: Any) -> Any:
    """A value of an SQLite JSON column: text or bytes of JSON, or a number that an
    earlier version let SQLite's affinity convert (kept as it is; one that became
    infinite is written as `1e999`, its sign kept, so it is still JSON)."""
    if isinstance(value, float) and not math.isfinite(value):
        return JsonNumber("-1e999" if value < 0 else "1e999")
    if isinstance(value, (int, float)):
        return value
    return read_json(value)  # text, or bytes


_SQLITE_JSON_CODEC = {"json_serializer": _sqlite_json, "json_deserializer": _sqlite_read}


def make_engine(url: str | URL, **kwargs: Any) -> Engine:
    """Create an engine for `url`; SQLite connections are set up for concurrent use."""
    parsed = normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = _sqlite_file(parsed)
        if path is not None and not path.exists():
            # Said (the CLI shows it), so that a command run with another database in
            # mind does not fill a new, empty one unnoticed.
            log.info("creating a new database: %s (%s)", path.resolve(), _chosen_by(parsed))
            path.parent.mkdir(parents=True, exist_ok=True)
        kwargs.setdefault("connect_args", {}).setdefault("timeout", SQLITE_BUSY_TIMEOUT_MS / 1000)
        engine = create_engine(parsed, **_SQLITE_JSON_CODEC, **kwargs)
        event.listen(engine, "connect", _on_sqlite_connect)
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    return create_engine(parsed, **_JSON_CODEC, **kwargs)


def make_sessionmaker(engine: Engine, limits: FolderLimits = DEFAULT_LIMITS
                      ) -> sessionmaker[Session]:
    """Sessions on `engine` that carry the deployment's folder `limits`, in their `info`
    under the class `FolderLimits` (read by `store.folder_limits`): the app's config
    (`SKILL_MAX_FILES`, `SKILL_MAX_BYTES`, `AGENT_MAX_FILE_BYTES`), or for the command line
    the same names prefixed `SKILL_EDITOR_` in the environment (`env_limits`)."""
    # Objects stay readable after the commit each store function ends with.
    return sessionmaker(bind=engine, expire_on_commit=False, info={FolderLimits: limits})


def env_limits() -> FolderLimits:
    """The folder limits the environment sets (`SKILL_EDITOR_SKILL_MAX_FILES`...)."""
    return limits_from({key: os.environ.get(ENV_PREFIX + key) for key in LIMIT_SETTINGS.values()})


# -- migrations


def alembic_config(engine_or_url: Engine | str | URL | None = None) -> Any:
    """An Alembic `Config` for migrations/, built in code (no alembic.ini needed).

    Pass an engine to migrate through it; a URL is handed to env.py as `sqlalchemy.url`.
    """
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if isinstance(engine_or_url, Engine):
        config.attributes["engine"] = engine_or_url
    elif engine_or_url is not None:
        rendered = normalize_url(engine_or_url).render_as_string(hide_password=False)
        # ConfigParser treats % as interpolation; escape it for passwords with % in them.
        config.set_main_option("sqlalchemy.url", rendered.replace("%", "%%"))
    return config


@contextlib.contextmanager
def _migration_lock(engine: Engine) -> Iterator[None]:
    """Let only one process migrate (or seed) a database at a time.

    Several app workers start together; without this two of them could both try to
    create the tables. PostgreSQL gets an advisory lock, an SQLite file a lock file.
    """
    backend = engine.dialect.name
    if backend == "postgresql":
        with engine.connect() as connection:
            connection.execute(select(func.pg_advisory_lock(_PG_MIGRATION_LOCK)))
            connection.commit()
            try:
                yield
            finally:
                connection.execute(select(func.pg_advisory_unlock(_PG_MIGRATION_LOCK)))
                connection.commit()
        return
    path = _sqlite_file(engine.url) if backend == "sqlite" else None
    if path is None or fcntl is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{path}.lock", "a") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


def upgrade(engine_or_url: Engine | str | URL, revision: str = "head") -> None:
    """Upgrade the database to `revision` (the newest by default)."""
    from alembic import command

    with _engine(engine_or_url) as engine, _migration_lock(engine):
        command.upgrade(alembic_config(engine), revision)


def downgrade(engine_or_url: Engine | str | URL, revision: str = "base") -> None:
    """Downgrade the database to `revision` (an empty database by default)."""
    from alembic import command

    with _engine(engine_or_url) as engine, _migration_lock(engine):
        command.downgrade(alembic_config(engine), revision)


def current_revision(engine_or_url: Engine | str | URL) -> str | None:
    """The migration the database is at, or None for an empty database."""
    from alembic.migration import MigrationContext

    with _engine(engine_or_url) as engine, engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


@contextlib.contextmanager
def _engine(engine_or_url: Engine | str | URL) -> Iterator[Engine]:
    """`engine_or_url` as an engine; one made here from a URL is disposed afterwards."""
    if isinstance(engine_or_url, Engine):
        yield engine_or_url
        return
    engine = make_engine(engine_or_url)
    try:
        yield engine
    finally:
        engine.dispose()


def prepare(engine: Engine, *, seed: Seed | None = None) -> list[str]:
    """Upgrade to the newest schema and, when no agent exists, call `seed` (the demo's
    `seed_demo`, which the app passes: the demo is a layer above the schema).

    Returns the names of the agents seeded (empty when nothing was).
    """
    from alembic import command

    with _migration_lock(engine):
        command.upgrade(alembic_config(engine), "head")
        if seed is None:
            return []
        with make_sessionmaker(engine)() as session:
            if session.scalar(select(func.count()).select_from(models.Agent)):
                return []
            return seed(session)


# -- sessions without Flask


@contextlib.contextmanager
def session_scope(url: str | URL | None = None, *,
                  upgrade_schema: bool = True) -> Iterator[Session]:
    """A session on `url` (see `resolve_url`) for the CLI and scripts.

    The schema is upgraded first unless `upgrade_schema` is false. Whatever the
    session holds uncommitted is committed at the end, rolled back on an exception;
    the engine is disposed either way.
    """
    engine = make_engine(resolve_url(str(url) if url is not None else None))
    try:
        if upgrade_schema:
            prepare(engine)
        with make_sessionmaker(engine, env_limits())() as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise
    finally:
        engine.dispose()


# -- Flask integration


class Database:
    """What `init_app` keeps on the app: the engine and its session factory."""

    def __init__(self, engine: Engine, limits: FolderLimits = DEFAULT_LIMITS):
        self.engine = engine
        self.sessionmaker = make_sessionmaker(engine, limits)


def init_app(app: Flask, seed: Seed | None = None) -> None:
    """Connect `app` to its database: upgrade it, seed an empty one with `seed` (if
    given), and manage sessions.

    Config: `DATABASE_URL` (else `$DATABASE_URL`, else `default_url()`) and
    `DATABASE_UPGRADE` (default True: migrate to the newest schema); the folder limits its
    sessions carry (`folder_limits`).
    """
    url = resolve_url(app.config.get("DATABASE_URL") or None)
    app.config["DATABASE_URL"] = url
    database = Database(make_engine(url), limits_from(app.config))
    app.extensions[_EXTENSION_KEY] = database
    if app.config.get("DATABASE_UPGRADE", True):
        seeded = prepare(database.engine, seed=seed)
        if seeded:
            app.logger.info("seeded the demo workspace: %s", ", ".join(seeded))
    app.teardown_appcontext(close_session)


def get_database(app: Flask | None = None) -> Database:
    """The `Database` of `app` (the current app by default)."""
    from flask import current_app

    app = app or current_app
    try:
        return app.extensions[_EXTENSION_KEY]
    except KeyError:
        raise RuntimeError("the database is not set up: call webapp.schema.db.init_app(app)"
                           ) from None


def get_session() -> Session:
    """The current request's session, opened on first use and closed on teardown."""
    from flask import g

    if "db_session" not in g:
        g.db_session = get_database().sessionmaker()
    return g.db_session


def close_session(exc: BaseException | None = None) -> None:
    """Close the request's session; anything left uncommitted is rolled back."""
    from flask import g

    session = g.pop("db_session", None)
    if session is not None:
        session.close()
