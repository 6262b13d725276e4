"""The Flask application factory and `serve`.

Run it with `skill-editor serve`, `flask --app webapp.app run`, or in production
`gunicorn 'webapp.app:create_app()'`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from . import tokens, web
from .demo import seed_demo
from .schema import db
from .views.preview import MODEL_DEFAULTS

#: The checkout the package sits in: `templates/` and `static/` beside `webapp/`.
ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
STATIC = ROOT / "static"
#: Largest request body accepted (skills are text; a megabyte is a long book chapter).
MAX_CONTENT_LENGTH = 1024 * 1024
#: Largest body of a bundle or SKILL.md import (`POST /transfer/bundle`, `/transfer/skill`):
#: a bundle of 700 skills is about 1.5 MB. Larger bundles import with `skill-editor import`.
IMPORT_MAX_CONTENT_LENGTH = 16 * 1024 * 1024


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Create the app: config, secret key, database, security and blueprints."""
    app = Flask(__name__, instance_relative_config=True,
                template_folder=str(TEMPLATES), static_folder=str(STATIC))
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=MAX_CONTENT_LENGTH,
        # Flask 3.1 also caps a single form field; the whole body is the limit we mean.
        MAX_FORM_MEMORY_SIZE=MAX_CONTENT_LENGTH,
        IMPORT_MAX_CONTENT_LENGTH=IMPORT_MAX_CONTENT_LENGTH,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        **MODEL_DEFAULTS,
    )
    if os.environ.get("DATABASE_URL"):
        app.config["DATABASE_URL"] = os.environ["DATABASE_URL"]
    if test_config is None:
        app.config.from_prefixed_env("SKILL_EDITOR")
    else:
        app.config.from_mapping(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = os.environ.get("SECRET_KEY") or _instance_secret(app)

    # SEED_DEMO (default true): an empty database gets the demo workspace.
    db.init_app(app, seed=seed_demo if app.config.get("SEED_DEMO", True) else None)
    web.register(app)
    # The token encoding (a quarter of a second to build) is loaded with the app, not by
    # the first page that counts: under gunicorn's --preload every worker inherits it.
    tokens.encoding()
    return app


def _instance_secret(app: Flask) -> str:
    """A secret key kept in the instance folder, generated on first start.

    Sessions (and their CSRF tokens) then survive restarts and are shared by every
    worker on this machine, without anyone having to configure a key.
    """
    path = Path(app.instance_path) / "secret_key"
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    try:
        # O_EXCL: when two workers start together, the first one's key wins.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="ascii").strip()
    with os.fdopen(fd, "w", encoding="ascii") as file:
        file.write(key)
    return key


class RefusedAddress(Exception):
    """`serve` was asked for an address other than this machine's while no account exists."""


def serve(host: str = "127.0.0.1", port: int = 5000, *, debug: bool = False) -> None:
    """Create the app (upgrading and seeding the database) and serve it with werkzeug, with
    a webhook worker in a thread (`webapp.outbound.delivery`);
    raises `RefusedAddress` for an address other than loopback while no account exists."""
    from werkzeug.serving import run_simple

    app = create_app()
    if not web.access.is_loopback_host(host):
        with app.app_context():
            if web.access.local_mode():
                raise RefusedAddress(
                    f"not serving on {host}: no account exists yet, so Skill Editor is a "
                    "single-user tool for this machine (127.0.0.1, localhost). Create the "
                    "first account with `skill-editor user add NAME --role admin`, then "
                    "serve it on other addresses.")
    from webapp.outbound.delivery import start_thread

    stop_worker = start_thread(app.config["DATABASE_URL"])
    try:
        run_simple(host, port, app, use_reloader=debug, use_debugger=debug, threaded=True)
    finally:
        stop_worker()
