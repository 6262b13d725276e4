"""Who is making the store's changes: the one place a write learns its author.

The web layer sets the signed-in user for each request and the CLI sets the account it
acts as; every store function that records an author (revisions, imports, renames,
deletes, restores, log appends, publishes) reads `current_actor()` instead of taking a
parameter, so no caller can forget to pass it. `None` is the local single-user mode
(no accounts), shown as "local".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_actor: ContextVar[str | None] = ContextVar("skill_editor_actor", default=None)

#: How a change made without an account (the local single-user mode) is shown.
LOCAL = "local"


def current_actor() -> str | None:
    """The username the current change is made by, or None in the local mode."""
    return _actor.get()


def set_actor(username: str | None) -> None:
    """Make `username` the author of the changes that follow in this context."""
    _actor.set(username)


@contextmanager
def acting_as(username: str | None) -> Iterator[None]:
    """The changes made inside the block are `username`'s; the author before is restored."""
    token = _actor.set(username)
    try:
        yield
    finally:
        _actor.reset(token)
