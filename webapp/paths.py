"""Where the app's files live: `templates/`, `static/`, `docs/` and `migrations/` sit
beside the `webapp` package in a checkout."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
STATIC = ROOT / "static"
DOCS = ROOT / "docs"
MIGRATIONS = ROOT / "migrations"
