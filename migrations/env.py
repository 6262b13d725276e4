"""Alembic environment: migrates the database the models in `webapp.schema.models` describe.

Called three ways: by `webapp.schema.db.upgrade()` (which hands over an engine), by the
`alembic` command with `-c migrations/alembic.ini`, or with only `$DATABASE_URL` set.
SQLite cannot alter most things in place, so migrations run in batch mode there.
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import Engine

import webapp.schema.api_models  # noqa: F401  (its tables are in Base.metadata)
import webapp.schema.kept_models  # noqa: F401  (its table is in Base.metadata)
from webapp.schema import db
from webapp.schema.models import Base

config = context.config
if config.config_file_name is not None and config.attributes.get("engine") is None:
    fileConfig(config.config_file_name, disable_existing_loggers=False)
target_metadata = Base.metadata


def _url() -> str:
    return config.get_main_option("sqlalchemy.url") or db.resolve_url()


def run_migrations_offline() -> None:
    """Write the SQL to stdout (`alembic upgrade head --sql`) instead of running it."""
    url = db.normalize_url(_url())
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        render_as_batch=url.get_backend_name() == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine: Engine | None = config.attributes.get("engine")
    owned = engine is None
    if engine is None:
        engine = db.make_engine(_url())
    try:
        with engine.connect() as connection:
            context.configure(
                connection=connection,
                target_metadata=target_metadata,
                render_as_batch=connection.dialect.name == "sqlite",
                compare_type=True,
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        if owned:
            engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
