"""Seeding the demo bundles into a database."""

from __future__ import annotations

import logging
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import store
from ..pipeline import load_bundle
from ..schema import models

HERE = Path(__file__).resolve().parent

#: The demo bundles, in the order they are seeded (the first is the one opened first).
DEMO_BUNDLES: tuple[Path, ...] = (HERE / "simon.json", HERE / "relay_watch.json")

log = logging.getLogger(__name__)


def seed_demo(session: Session, bundles: tuple[Path, ...] = DEMO_BUNDLES) -> list[str]:
    """Import each demo bundle whose agent is not in the database yet.

    A bundle file that is missing is skipped with a warning: the demo is a
    convenience and must never stop the app from starting. Returns the names of
    the agents imported.
    """
    seeded = []
    for path in bundles:
        if not path.exists():
            log.warning("demo bundle %s is missing; not seeded", path.name)
            continue
        workspace = load_bundle(path)
        name = workspace.agent.name
        if session.scalar(select(models.Agent.id).where(models.Agent.name == name)):
            continue
        store.import_bundle(session, workspace)
        seeded.append(name)
    return seeded
