"""Rows any process of the app may read instead of computing them again: the context test
runs of the pages that show every scenario's tests (`store.test_runs`).

Apart from `webapp.schema.models` (whose `Base` they share, so one metadata holds every table
and Alembic sees them) because no row here is anyone's data: each is a pure function of
what its key names, and dropping every one loses nothing but the time to make it again.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from webapp.schema.models import Base, utcnow


class KeptTestRun(Base):
    """A context test run of an agent's, kept by the sha256 (`key`) of the code that ran
    it, the agent, the workspace it ran on and the scenario asked for: `results` is its
    list of results as JSON (a failing snapshot test's holds text of the agent's
    document, so the row goes with the agent). The newest few are kept
    (`store.test_runs.KEPT_ROWS`)."""

    __tablename__ = "kept_test_runs"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"),
                                          index=True)
    made_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    results: Mapped[str] = mapped_column(Text)

    def __repr__(self) -> str:
        return f"<KeptTestRun {self.key[:12]} {self.made_at:%Y-%m-%d %H:%M}>"
