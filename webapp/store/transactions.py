"""One transaction per store call: the `change` decorator, and the helpers writes share."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .errors import AlreadyExists

P = ParamSpec("P")
R = TypeVar("R")

#: Set in `session.info` while a `change` runs, so a change it calls joins it.
_IN_CHANGE = "skill_editor_store_change"


def change(fn: Callable[Concatenate[Session, P], R]) -> Callable[Concatenate[Session, P], R]:
    """Run a store function as one transaction: commit on return, roll back on error.

    A change called from inside another (`rename_tool` saving skills) is part of the
    outer one: only the outermost commits, so a multi-row change is all or nothing.
    """

    @functools.wraps(fn)
    def wrapper(session: Session, *args: P.args, **kwargs: P.kwargs) -> R:
        if session.info.get(_IN_CHANGE):
            return fn(session, *args, **kwargs)
        session.info[_IN_CHANGE] = True
        try:
            result = fn(session, *args, **kwargs)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.info.pop(_IN_CHANGE, None)
        return result

    return wrapper


def rows(model: type[Any]) -> Any:
    """`select(model)` that refreshes objects the session already holds.

    Sessions keep objects across commits (`expire_on_commit=False`), so without
    this a long-lived session could see the version or text of an earlier read.
    """
    return select(model).execution_options(populate_existing=True)


def insert(session: Session, row: Any, field_name: str, message: str) -> None:
    """Add `row` and flush; a unique-constraint race becomes `AlreadyExists`."""
    session.add(row)
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise AlreadyExists([(field_name, message)]) from None


def apply_changes(fields: dict[str, Any], changes: Mapping[str, Any]) -> None:
    """`fields.update(changes)`, refusing keys `fields` does not have."""
    unknown = sorted(set(changes) - set(fields))
    if unknown:
        raise TypeError(f"unknown field(s): {', '.join(unknown)}")
    fields.update(changes)


def in_change(session: Session) -> bool:
    """Whether a `change` is running on `session` (what it writes commits with it)."""
    return bool(session.info.get(_IN_CHANGE))
