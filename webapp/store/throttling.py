"""Sign-in throttling: a short backoff after repeated failures, never a lock.

Failures are rows of `failed_logins`, in the database, so every app worker and every
instance on it counts the same ones. Past `FREE_FAILURES` failures within `WINDOW`, each
further attempt waits `wait_after` the last failure (seconds, doubling, at most
`LONGEST_WAIT`), counted for the username from one client address, for the client
address, and for the username from every address that failed lately
(`throttled_until`). An address that never failed is never held up, so someone guessing
a name elsewhere cannot lock its owner out. `webapp.store.accounts.authenticate` asks
before checking a password and records each failure.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, delete, func, select
from sqlalchemy.orm import Session

from webapp.schema import models

from .errors import StoreError
from .transactions import change

#: Throttling: a failure counts for this long (older ones are dropped as new ones come).
WINDOW = timedelta(minutes=15)
#: Fewer failures than this within `WINDOW` cost no wait: a few mistyped passwords.
FREE_FAILURES = 5
#: The wait after the first failure past the free ones; each further failure doubles it,
#: up to `LONGEST_WAIT`. A guesser gets about one try a minute per name and per address;
#: the account's owner, sharing an address with one at worst, waits a minute, never 15.
FIRST_WAIT = timedelta(seconds=1)
LONGEST_WAIT = timedelta(seconds=60)


class Throttled(StoreError):
    """Too many failures lately (`what` failed: sign-ins, or API keys): nothing was
    checked; try again at `retry_at`."""

    def __init__(self, retry_at: datetime, now: datetime, what: str = "failed sign-ins"):
        self.retry_at = retry_at
        self.retry_after = max(1, int((retry_at - now).total_seconds() + 0.999))
        super().__init__(f"too many {what}; try again in {_duration(self.retry_after)}")


def throttled_until(session: Session, username: str, address: str,
                    now: datetime) -> datetime | None:
    """When a sign-in as `username` from `address` may be tried, or None if it may now.

    Three counts of the failures within `WINDOW`, each waiting `wait_after` its last one:
    the name from this address (a guesser, or the owner mistyping); the address, for any
    name (one guesser trying many names); and the name from every address, which holds up
    only an address that failed lately itself (many guessers on one name), so the owner
    from an address that never failed signs in whatever others try.
    """
    failed = models.FailedLogin
    # A name in parentheses is a kind of its own (wrong API keys: `api_keys.THROTTLE_NAME`),
    # counted apart: a runtime's wrong keys never hold up a person's sign-in from its
    # address, and a scanner's keys elsewhere never hold up this address's.
    apart = username.startswith("(")
    kind = (failed.username == username) if apart else ~failed.username.startswith("(")
    counts = [_failures(session, now, failed.username == username, failed.address == address),
              _failures(session, now, failed.address == address, kind)]
    if counts[-1][0] and not apart:  # the address failed lately: the name's failures
        counts.append(_failures(session, now, failed.username == username))  # everywhere
    retry_at = max((last + wait_after(count) for count, last in counts if count),
                   default=None)
    return retry_at if retry_at is not None and retry_at > now else None


def wait_after(failures: int) -> timedelta:
    """How long after the last of `failures` recent failures the next attempt waits:
    nothing for the first `FREE_FAILURES`, then `FIRST_WAIT`, doubling up to `LONGEST_WAIT`."""
    if failures < FREE_FAILURES:
        return timedelta(0)
    return min(FIRST_WAIT * 2 ** min(failures - FREE_FAILURES, 16), LONGEST_WAIT)


@change
def record_failure(session: Session, username: str, address: str, now: datetime) -> None:
    """Record a refused sign-in."""
    # Failures older than the window count for nothing: drop them as new ones come.
    session.execute(delete(models.FailedLogin).where(models.FailedLogin.at <= now - WINDOW))
    session.add(models.FailedLogin(username=username, address=address, at=now))


def _failures(session: Session, now: datetime,
              *conditions: ColumnElement[bool]) -> tuple[int, datetime]:
    """How many failures within `WINDOW` meet `conditions`, and when the last one was."""
    failed = models.FailedLogin
    count, last = session.execute(select(func.count(), func.max(failed.at)).where(
        *conditions, failed.at > now - WINDOW)).one()
    return count, last


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} second{'' if seconds == 1 else 's'}"
    minutes = (seconds + 59) // 60
    return f"{minutes} minutes"
